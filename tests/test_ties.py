"""The tie table against a direct count over the raw rows."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats.ties import TieTable
from aucpr_stats.tables import tie_table_from_classes, tie_table_from_rows, tie_table_from_sorted


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


# ------------------------------------------- builders from unsorted rows
# Scores drawn so that ties, signed zeros, subnormals and neighbouring floats
# (which collide in the truncated sort key of tie_table_from_rows) all occur.
_NEAR = [1.0, float(np.nextafter(1.0, 2.0)), float(np.nextafter(1.0, 0.0)), 0.5]
_scores = st.one_of(
    st.integers(-3, 3).map(float),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e300, *_NEAR, *(-v for v in _NEAR)]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
_rows = st.lists(st.tuples(st.integers(0, 6), _scores, st.booleans()), min_size=0, max_size=60)


def _arrays(data):
    groups = np.array([r[0] for r in data], dtype=np.int64)
    scores = np.array([r[1] for r in data], dtype=float)
    labels = np.array([r[2] for r in data], dtype=bool)
    return groups, scores, labels


def _sorted_reference(groups, scores, labels, n_groups):
    order = np.lexsort((-scores, groups))
    return tie_table_from_sorted(groups[order], scores[order], labels[order], n_groups)


def _same_table(a: TieTable, b: TieTable) -> None:
    assert rows_of(a) == rows_of(b)
    np.testing.assert_array_equal(a.offsets, b.offsets)


@settings(max_examples=120, deadline=None)
@given(data=_rows, n_groups=st.integers(7, 9))
def test_rows_builder_matches_sorted_builder_and_brute_force(data, n_groups):
    # groups 7.. never occur: empty segments, also at the end
    groups, scores, labels = _arrays(data)
    table = tie_table_from_rows(groups, scores, labels, n_groups)
    _same_table(table, _sorted_reference(groups, scores, labels, n_groups))
    assert rows_of(table) == brute_force_tie_table(groups, scores, labels, n_groups)


@settings(max_examples=120, deadline=None)
@given(data=_rows)
def test_classes_builder_matches_sorted_builder_and_brute_force(data):
    _, scores, labels = _arrays(data)
    table = tie_table_from_classes(scores[labels], scores[~labels])
    zeros = np.zeros(scores.size, dtype=np.int64)
    _same_table(table, _sorted_reference(zeros, scores, labels, 1))
    assert rows_of(table) == brute_force_tie_table(zeros, scores, labels, 1)
    assert tie_table_from_rows(zeros, scores, labels, 1).n_rows == table.n_rows


def test_rows_builder_resorts_scores_that_collide_in_the_key():
    # 2**20 groups leave 44 bits of the score in the key: neighbouring floats collide
    base = np.nextafter(1.0, 2.0) ** np.arange(1, 6)
    scores = np.concatenate([base, base[::-1] * -1, np.nextafter(base, 0.0)])
    groups = np.full(scores.size, (1 << 20) - 1)
    labels = np.arange(scores.size) % 3 == 0
    table = tie_table_from_rows(groups, scores, labels, 1 << 20)
    assert rows_of(table)[-1] == brute_force_tie_table(np.zeros_like(groups), scores, labels, 1)[0]
    assert table.n_rows == np.unique(scores).size


def test_classes_builder_does_not_touch_inputs_unless_allowed():
    pos, neg = np.array([3.0, 1.0, 2.0]), np.array([0.5, 2.0])
    tie_table_from_classes(pos, neg)
    np.testing.assert_array_equal(pos, [3.0, 1.0, 2.0])
    table = tie_table_from_classes(pos, neg, overwrite_input=True)
    assert rows_of(table) == [[(3.0, 1, 0), (2.0, 1, 1), (1.0, 1, 0), (0.5, 0, 1)]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1e6, allow_subnormal=False), max_size=6), min_size=1, max_size=6))
def test_segment_cumsum_of_weighted_counts_is_each_segment_alone(segments):
    # float running sums restart at each segment: the bits of np.cumsum of the segment alone, whatever
    # the segments before it hold (a running sum across segments carries their rounding error)
    values = np.array([v for seg in segments for v in seg], dtype=np.float64)
    offsets = np.r_[0, np.cumsum([len(seg) for seg in segments])]
    table = TieTable(np.arange(values.size, 0, -1.0), values, values, offsets)
    got = table.segment_cumsum(values)
    for k, seg in enumerate(segments):
        np.testing.assert_array_equal(got[offsets[k]:offsets[k + 1]], np.cumsum(np.array(seg, dtype=np.float64)))


def test_segment_cumsum_after_a_large_segment():
    table = TieTable([2.0, 1.0, 3.0, 2.0, 1.0], [1e16, 3.0, 0.1, 0.2, 0.3], [1.0, 0.0, 0.0, 0.7, 0.1],
                     [0, 2, 5])
    np.testing.assert_array_equal(table.tp()[2:], np.cumsum([0.1, 0.2, 0.3]))
    np.testing.assert_array_equal(table.fp()[2:], np.cumsum([0.0, 0.7, 0.1]))
    np.testing.assert_array_equal(table.tp()[:2], [1e16, 1e16 + 3.0])
