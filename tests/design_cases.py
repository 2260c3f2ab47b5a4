"""Tie tables of clustered rows built from explicit rows, shared by the design tests."""

from __future__ import annotations

import numpy as np

from aucpr_stats.tables import tie_table_from_counts


def cluster_tables(group, cluster, y, s, w=None):
    """Group table, unit table (one segment per (group, cluster)) and unit_group, from explicit rows."""
    group, cluster, y, s = (np.asarray(a) for a in (group, cluster, y, s))
    w = np.ones(y.size, dtype=np.int64) if w is None else np.asarray(w)
    n_groups = int(group.max()) + 1
    group_ties = tie_table_from_counts(group, s, w * y, w * (1 - y), n_groups)
    pairs, unit = np.unique(np.stack([group, cluster]), axis=1, return_inverse=True)
    units = tie_table_from_counts(unit.ravel(), s, w * y, w * (1 - y), pairs.shape[1])
    return group_ties, units, pairs[0].astype(np.int64)
