"""The tie table against a direct count over the raw rows."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats._ties import TieTable, tie_table_from_sorted


def brute_force_tie_table(groups, scores, labels, n_groups):
    """Per group: sorted distinct scores (descending) with counts, by plain Python."""
    out = []
    for g in range(n_groups):
        pos = Counter(s for gg, s, y in zip(groups, scores, labels) if gg == g and y)
        neg = Counter(s for gg, s, y in zip(groups, scores, labels) if gg == g and not y)
        distinct = sorted(set(pos) | set(neg), reverse=True)
        out.append([(s, pos[s], neg[s]) for s in distinct])
    return out


def rows_of(table: TieTable):
    return [
        list(zip(table.score[a:b].tolist(), table.pos[a:b].tolist(), table.neg[a:b].tolist()))
        for a, b in zip(table.offsets[:-1], table.offsets[1:])
    ]


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 3), st.integers(-3, 3), st.booleans()), min_size=0, max_size=40
    )
)
def test_tie_table_matches_direct_count(data):
    n_groups = 5  # group 4 never occurs: an empty segment
    ordered = sorted(data, key=lambda r: (r[0], -r[1]))
    groups = np.array([r[0] for r in ordered], dtype=np.int64)
    scores = np.array([r[1] for r in ordered], dtype=float)
    labels = np.array([r[2] for r in ordered], dtype=bool)
    table = tie_table_from_sorted(groups, scores, labels, n_groups)
    assert rows_of(table) == brute_force_tie_table(groups, scores, labels, n_groups)
    assert table.n_segments == n_groups
    np.testing.assert_array_equal(table.n_pos, [sum(1 for g, y in zip(groups, labels) if g == k and y) for k in range(n_groups)])


def test_cumulative_counts_restart_per_segment():
    table = TieTable(score=[3, 2, 1, 5, 4], pos=[1, 0, 2, 0, 1], neg=[0, 1, 1, 2, 0], offsets=[0, 3, 3, 5])
    np.testing.assert_array_equal(table.tp(), [1, 1, 3, 0, 1])
    np.testing.assert_array_equal(table.fp(), [0, 1, 2, 2, 2])
    np.testing.assert_array_equal(table.n_pos, [3, 0, 1])
    np.testing.assert_array_equal(table.n_neg, [2, 0, 2])
    np.testing.assert_array_equal(table.segment_ids(), [0, 0, 0, 2, 2])


def test_compact_and_take_keep_segments_aligned():
    table = TieTable(score=[3, 2, 1, 5, 4], pos=[1, 0, 0, 0, 1], neg=[0, 0, 1, 2, 0], offsets=[0, 3, 3, 5])
    compacted = table.compact()
    assert rows_of(compacted) == [[(3.0, 1, 0), (1.0, 0, 1)], [], [(5.0, 0, 2), (4.0, 1, 0)]]
    taken = table.take([2, 0])
    assert rows_of(taken) == [rows_of(table)[2], rows_of(table)[0]]


def test_invalid_offsets_rejected():
    with pytest.raises(ValueError, match="offsets"):
        TieTable(score=[1.0], pos=[1], neg=[0], offsets=[0, 2])
