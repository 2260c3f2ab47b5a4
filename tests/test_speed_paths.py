"""Correctness of the fast paths of issue 19 (never timings).

* the grouped builder (:func:`aucpr_stats.ingest.build.tie_table_from_rows`),
  on both of its roads, against an oracle from ``np.lexsort``: the same table
  bit for bit, with heavy ties, 0.0 and -0.0, scores one ulp apart, empty
  and one-row groups;
* :func:`aucpr_stats.ingest.build.bucket_order` against a stable argsort.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats.ingest import build
from aucpr_stats.ingest.build import bucket_order, tie_table_from_rows


def lexsort_oracle(group, score, positive, n_groups):
    """Tie tables by the definition: sort by (group, score descending), one row per run of equal scores.

    A run holding both 0.0 and -0.0 reads 0.0; a run of -0.0 only reads -0.0.
    """
    order = np.lexsort((-score, group))
    g, s, p = group[order], score[order], positive[order]
    rows = {"score": [], "pos": [], "neg": []}
    per_group = np.zeros(n_groups, dtype=np.int64)
    i = 0
    while i < s.size:  # a plain loop over rows: slow and obviously right
        j = i
        while j + 1 < s.size and g[j + 1] == g[i] and s[j + 1] == s[i]:
            j += 1
        run = s[i: j + 1]
        value = s[i]
        if value == 0.0:
            value = 0.0 if (~np.signbit(run)).any() else -0.0
        rows["score"].append(value)
        rows["pos"].append(int(p[i: j + 1].sum()))
        rows["neg"].append(int((~p[i: j + 1]).sum()))
        per_group[g[i]] += 1
        i = j + 1
    offsets = np.concatenate(([0], np.cumsum(per_group)))
    return np.array(rows["score"], dtype=np.float64), np.array(rows["pos"]), np.array(rows["neg"]), offsets


def assert_same_table(table, oracle):
    score, pos, neg, offsets = oracle
    np.testing.assert_array_equal(table.offsets, offsets)
    np.testing.assert_array_equal(table.score.view(np.uint64), score.view(np.uint64))  # bits, so -0.0 != 0.0
    np.testing.assert_array_equal(table.pos, pos)
    np.testing.assert_array_equal(table.neg, neg)


@pytest.fixture(params=["buckets", "packed_key"])
def road(request, monkeypatch):
    """Force one road of tie_table_from_rows whatever the group sizes."""
    monkeypatch.setattr(build, "BUCKET_MIN_ROWS", 0 if request.param == "buckets" else 10**12)
    return request.param


ONE = np.float64(1.0)
# a pool with heavy ties, signed zeros, and neighbours one ulp apart (they collide in a truncated key)
POOL = np.array([0.0, -0.0, 1.0, np.nextafter(ONE, 2), np.nextafter(ONE, 0), -1.0, np.nextafter(-ONE, 0),
                 2.5, -3.75, 1e300, -1e300, 5e-324, -5e-324, 0.3, 0.1 + 0.2])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_rows_builder_matches_lexsort_oracle(data):
    # two groups or more: one group takes the class-sort road (tie_table_from_classes), whose 0.0/-0.0 tie
    # keeps whichever zero np.sort puts first
    n_groups = data.draw(st.integers(2, 6))
    n = data.draw(st.integers(0, 60))
    group = np.array(data.draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)), dtype=np.int64)
    score = POOL[data.draw(st.lists(st.integers(0, POOL.size - 1), min_size=n, max_size=n))] if n else np.empty(0)
    positive = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    oracle = lexsort_oracle(group, score, positive, n_groups)
    for threshold in (0, 10**12):  # both roads
        build.BUCKET_MIN_ROWS, saved = threshold, build.BUCKET_MIN_ROWS
        try:
            assert_same_table(tie_table_from_rows(group, score, positive, n_groups), oracle)
        finally:
            build.BUCKET_MIN_ROWS = saved


def test_edges_on_both_roads(road):
    # empty groups (0, 3), a one-row group (2), ties across classes, 0.0 / -0.0 ties in one group,
    # -0.0 alone in another, scores one ulp apart within a group
    group = np.array([1, 1, 1, 1, 2, 4, 4, 4, 4, 5, 5, 5])
    score = np.array([0.0, -0.0, 0.0, 3.0, 7.0, -0.0, -0.0, 1.0, np.nextafter(ONE, 2), 1.0, 1.0, 1.0])
    positive = np.array([1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1], dtype=bool)
    table = tie_table_from_rows(group, score, positive, 6)
    assert_same_table(table, lexsort_oracle(group, score, positive, 6))
    assert table.lengths.tolist() == [0, 2, 1, 0, 3, 1]
    assert not np.signbit(table.score[1]) and np.signbit(table.score[5])  # 0.0 wins a tie; -0.0 alone stays


def test_large_groups_many_collisions(road):
    # scores that agree in all but the lowest bits, many per group: the truncated key's worst case
    rng = np.random.default_rng(3)
    n, n_groups = 20_000, 7
    base = np.array([1.0, -2.0, 1e-3])[rng.integers(0, 3, n)]
    score = base + rng.integers(-40, 40, n) * np.spacing(base)
    group = rng.integers(0, n_groups, n)
    positive = rng.random(n) < 0.3
    order = np.lexsort((-score, group))
    table = tie_table_from_rows(group, score, positive, n_groups)
    # oracle without the row loop (every value non-zero): runs of the lexsorted rows
    g, s, p = group[order], score[order], positive[order]
    start = np.concatenate(([True], (g[1:] != g[:-1]) | (s[1:] != s[:-1])))
    first = np.flatnonzero(start)
    np.testing.assert_array_equal(table.score, s[first])
    np.testing.assert_array_equal(table.pos, np.add.reduceat(p.astype(np.int64), first))
    np.testing.assert_array_equal(table.offsets, np.concatenate(([0], np.cumsum(np.bincount(g[first], minlength=7)))))


@given(st.lists(st.integers(0, 9), max_size=200))
def test_bucket_order_is_a_stable_argsort(values):
    bucket = np.array(values, dtype=np.int64)
    np.testing.assert_array_equal(bucket_order(bucket, 10), np.argsort(bucket, kind="stable"))


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_rows_builder_same_table_on_any_number_of_threads(threads, monkeypatch):
    # every range of rows and every run of groups on its own thread: the table must not change
    monkeypatch.setattr(build, "BUCKET_MIN_ROWS", 0)
    monkeypatch.setattr(build, "PARALLEL_MIN_ROWS", 1)
    monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
    rng = np.random.default_rng(4)
    n, n_groups = 3000, 9
    group = rng.integers(0, n_groups - 1, n)  # the last group stays empty
    score = np.round(rng.standard_normal(n), 1) * np.where(rng.random(n) < 0.5, 1.0, -1.0)  # ties, +-0.0
    positive = rng.random(n) < 0.4
    assert_same_table(tie_table_from_rows(group, score, positive, n_groups),
                      lexsort_oracle(group, score, positive, n_groups))


def test_bootstrap_same_replicates_on_any_number_of_threads():
    from aucpr_stats.estimators import PR_ESTIMATORS
    from aucpr_stats.resample import bootstrap_estimates
    from aucpr_stats.ties import TieTable

    rng = np.random.default_rng(5)
    lengths = [30, 1, 200, 7]  # a one-row group (both classes at one score) among larger ones
    n_rows = sum(lengths)
    table = TieTable(np.concatenate([np.sort(rng.random(k))[::-1] for k in lengths]),
                     rng.integers(1, 4, n_rows), rng.integers(1, 9, n_rows), np.cumsum([0, *lengths]))
    estimators = [PR_ESTIMATORS["average_precision"], PR_ESTIMATORS["interpolated_median"]]
    runs = [bootstrap_estimates(table, estimators, 300, seed=9, chunk_size=7, threads=t) for t in (1, 2, 3)]
    assert not np.isnan(runs[0]).any()
    for other in runs[1:]:
        np.testing.assert_array_equal(other, runs[0])


def test_threads_setting(monkeypatch):
    from aucpr_stats.exceptions import InputError
    from aucpr_stats.resample.threads import thread_map, worker_threads

    monkeypatch.setenv("AUCPR_STATS_THREADS", "3")
    assert worker_threads() == 3 and worker_threads(1) == 1
    monkeypatch.delenv("AUCPR_STATS_THREADS")
    assert 1 <= worker_threads() <= 8
    for bad in ("0", "two", "1.5"):
        monkeypatch.setenv("AUCPR_STATS_THREADS", bad)
        with pytest.raises(InputError, match="AUCPR_STATS_THREADS"):
            worker_threads()
    assert thread_map(lambda x: x * x, range(5), 2) == [0, 1, 4, 9, 16]


def test_paired_bootstrap_same_on_any_number_of_threads(monkeypatch):
    import polars as pl

    from aucpr_stats.compare import compare

    rng = np.random.default_rng(6)
    n = 1500
    y = rng.random(n) < 0.3
    a = np.round(rng.standard_normal(n) + y, 1)  # ties in one score, not the other
    frame = pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "a": a, "b": a + rng.standard_normal(n)})
    runs = []
    for threads in ("1", "2"):
        monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
        runs.append(compare(frame, "y", ["a", "b"], by="g", metric="aucpr", method="bootstrap", estimator="all",
                            n_boot=150, seed=4).to_polars())
    assert runs[0].equals(runs[1])
    assert runs[0]["lower"].null_count() == 0


def test_paired_bootstrap_tiled_runs_match_cell_by_cell(monkeypatch):
    import polars as pl

    from aucpr_stats.compare import compare, paired

    rng = np.random.default_rng(7)
    n = 2000
    y = rng.random(n) < 0.25
    a = np.round(rng.standard_normal(n) + y, 1)
    frame = pl.DataFrame({"g": rng.integers(0, 12, n), "y": y, "a": a, "b": a + rng.standard_normal(n)})
    runs = []
    for limit in (0, 10**9):  # every chunk cell by cell; every chunk run by run
        monkeypatch.setattr(paired, "TILED_RUNS_MAX", limit)
        runs.append(compare(frame, "y", ["a", "b"], by="g", metric="aucpr", method="bootstrap", estimator="all",
                            n_boot=120, seed=8).to_polars())
    assert runs[0].equals(runs[1])
