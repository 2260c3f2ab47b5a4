"""Correctness of the fast paths of issue 19 (never timings).

* the grouped builder (:func:`aucpr_stats.tables.tie_table_from_rows`),
  on both of its roads, against an oracle from ``np.lexsort``: the same table
  bit for bit, with heavy ties, 0.0 and -0.0, scores one ulp apart, empty
  and one-row groups;
* :func:`aucpr_stats.tables.buckets.bucket_order` against a stable argsort.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats.tables import Tuning, bucket_order, tie_table_from_rows

#: The two roads of the rows builder, whatever the group sizes.
ROADS = {"buckets": Tuning(bucket_min_rows=0), "packed_key": Tuning(bucket_min_rows=10**12)}


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


@pytest.fixture(params=list(ROADS))
def road(request) -> Tuning:
    """One road of tie_table_from_rows whatever the group sizes."""
    return ROADS[request.param]


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
    for tuning in ROADS.values():  # both roads
        assert_same_table(tie_table_from_rows(group, score, positive, n_groups, tuning), oracle)


def test_edges_on_both_roads(road):
    # empty groups (0, 3), a one-row group (2), ties across classes, 0.0 / -0.0 ties in one group,
    # -0.0 alone in another, scores one ulp apart within a group
    group = np.array([1, 1, 1, 1, 2, 4, 4, 4, 4, 5, 5, 5])
    score = np.array([0.0, -0.0, 0.0, 3.0, 7.0, -0.0, -0.0, 1.0, np.nextafter(ONE, 2), 1.0, 1.0, 1.0])
    positive = np.array([1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1], dtype=bool)
    table = tie_table_from_rows(group, score, positive, 6, road)
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
    table = tie_table_from_rows(group, score, positive, n_groups, road)
    # oracle without the row loop (every value non-zero): runs of the lexsorted rows
    g, s, p = group[order], score[order], positive[order]
    start = np.concatenate(([True], (g[1:] != g[:-1]) | (s[1:] != s[:-1])))
    first = np.flatnonzero(start)
    np.testing.assert_array_equal(table.score, s[first])
    np.testing.assert_array_equal(table.pos, np.add.reduceat(p.astype(np.int64), first))
    np.testing.assert_array_equal(table.offsets, np.concatenate(([0], np.cumsum(np.bincount(g[first], minlength=7)))))


@settings(deadline=None)  # a value sort of <= 200 keys: a scheduler stall, not the code, is what can pass 200 ms
@given(st.lists(st.integers(0, 9), max_size=200))
def test_bucket_order_is_a_stable_argsort(values):
    bucket = np.array(values, dtype=np.int64)
    np.testing.assert_array_equal(bucket_order(bucket, 10), np.argsort(bucket, kind="stable"))


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_rows_builder_same_table_on_any_number_of_threads(threads, monkeypatch):
    # every range of rows and every run of groups on its own thread: the table must not change
    tuning = Tuning(bucket_min_rows=0, bucket_parallel_min_rows=1)
    monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
    rng = np.random.default_rng(4)
    n, n_groups = 3000, 9
    group = rng.integers(0, n_groups - 1, n)  # the last group stays empty
    score = np.round(rng.standard_normal(n), 1) * np.where(rng.random(n) < 0.5, 1.0, -1.0)  # ties, +-0.0
    positive = rng.random(n) < 0.4
    assert_same_table(tie_table_from_rows(group, score, positive, n_groups, tuning),
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


def paired_replicates(frame, ties: str, n_boot: int, scores=("a", "b", "c"), estimators=("average_precision",),
                      **roads) -> np.ndarray:
    """The replicate array of a paired bootstrap (the reader's paired tables, one road of the bootstrap)."""
    from aucpr_stats.compare.paired import paired_bootstrap
    from aucpr_stats.estimators.registry import records
    from aucpr_stats.front_door import front_door
    from aucpr_stats.ingest import read
    from aucpr_stats.resample import Streams

    chosen = records("aucpr", list(estimators), ties)
    with warnings.catch_warnings():  # degenerate and small groups on purpose: only the replicates are checked
        warnings.simplefilter("ignore")
        ingested = read(front_door("compare", frame, None, "y", list(scores), "g", paired=True, records=chosen,
                                   ties=ties))
    streams = Streams.for_keys(12, ingested.keys, ("g",), "compare")
    return paired_bootstrap(ingested.paired, chosen, n_boot, streams, **roads)


def test_paired_bootstrap_tiled_runs_match_cell_by_cell():
    import polars as pl

    from aucpr_stats.estimators import PR_ESTIMATORS

    rng = np.random.default_rng(7)
    n = 2000
    y = rng.random(n) < 0.25
    a = np.round(rng.standard_normal(n) + y, 1)
    frame = pl.DataFrame({"g": rng.integers(0, 12, n), "y": y, "a": a, "b": a + rng.standard_normal(n)})
    every = list(PR_ESTIMATORS)
    # every chunk cell by cell; every chunk run by run
    cells = paired_replicates(frame, "interpolate", 120, ("a", "b"), every, tiled_runs_max=0)
    runs = paired_replicates(frame, "interpolate", 120, ("a", "b"), every, tiled_runs_max=10**9)
    np.testing.assert_array_equal(cells.view(np.uint64), runs.view(np.uint64))


# ------------------------------------------------ paired bootstrap: average precision from the joint cells
def paired_frame(rng, sizes, prevalence=0.3):
    """Groups of the given sizes; scores with ties within and across classes, and one without ties."""
    import polars as pl

    g = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.random(g.size) < prevalence
    a = np.round(rng.standard_normal(g.size) + y, 1)
    return pl.DataFrame({"g": g, "y": y, "a": a, "b": np.round(a + rng.standard_normal(g.size), 0),
                         "c": rng.standard_normal(g.size) + y})


@pytest.mark.parametrize("ties", ["interpolate", "published"])
def test_paired_average_precision_from_cells_is_the_kernel_bit_for_bit(ties):
    # the direct road (PositiveRowMap) against replicate tables evaluated by the registry's kernel; groups of
    # 1-3 rows, one class only (5: positives only), tied and continuous scores, mixed tie rows
    rng = np.random.default_rng(11)
    frame = paired_frame(rng, [1, 2, 3, 40, 400, 7, 2500])
    frame = frame.with_columns(y=frame["y"] | (frame["g"] == 5))
    runs = [paired_replicates(frame, ties, 90, direct=direct) for direct in (True, False)]
    assert np.isfinite(runs[0][:, :, 3:]).all()
    np.testing.assert_array_equal(runs[0].view(np.uint64), runs[1].view(np.uint64))


def test_paired_direct_road_mixed_with_table_estimators():
    # average precision read from the cells next to estimators on replicate tables, in one call
    frame = paired_frame(np.random.default_rng(13), [300, 50, 900])
    both = ("interpolated_median", "average_precision")
    direct = paired_replicates(frame, "interpolate", 60, estimators=both, tiled_runs_max=10**9)
    tables = paired_replicates(frame, "interpolate", 60, estimators=both, tiled_runs_max=0, direct=False)
    np.testing.assert_array_equal(direct.view(np.uint64), tables.view(np.uint64))


@pytest.mark.parametrize("threads", ["2", "3"])
def test_paired_replicates_same_on_any_number_of_threads(threads, monkeypatch):
    # several ranges of groups drawn on different threads, a one-group-dominated case, many small groups
    frame = paired_frame(np.random.default_rng(14), [5000, 20, 30] + [12] * 40)
    monkeypatch.setenv("AUCPR_STATS_THREADS", "1")
    one = paired_replicates(frame, "interpolate", 70)
    monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
    np.testing.assert_array_equal(paired_replicates(frame, "interpolate", 70).view(np.uint64), one.view(np.uint64))


def test_replicate_producers_draw_what_replicate_chunks_draws():
    from aucpr_stats.resample import Streams, replicate_chunks, stratified_counts
    from aucpr_stats.resample.counts import CHUNK_ELEMENTS, replicate_producers
    from aucpr_stats.resample.threads import drain
    from aucpr_stats.ties import TieTable

    rng = np.random.default_rng(15)
    lengths = [0, 3000, 1, 40, 0, 700, 9000, 5]  # empty segments; Poisson and unit samplers
    n_rows = sum(lengths)
    table = TieTable(np.concatenate([np.sort(rng.random(k))[::-1] for k in lengths]),
                     rng.integers(0, 3, n_rows), rng.integers(0, 90, n_rows), np.cumsum([0, *lengths]))
    n_boot = 300
    expected = stratified_counts(table, n_boot, seed=2)  # the replicates of replicate_chunks, in one table
    producers = replicate_producers(table, n_boot, Streams.for_segments(2, table.n_segments, "bootstrap"),
                                    threads=2)
    assert len(producers) > 1 and table.n_rows * n_boot > 2 * CHUNK_ELEMENTS
    pos = np.zeros((n_boot, n_rows), dtype=np.int64)
    neg = np.zeros((n_boot, n_rows), dtype=np.int64)

    def put(chunk):
        lengths_ = table.lengths[chunk.segment]
        within = np.arange(chunk.table.n_rows) - np.repeat(chunk.table.offsets[:-1], lengths_)
        rows = np.repeat(chunk.replicate * n_rows + table.offsets[:-1][chunk.segment], lengths_) + within
        pos.ravel()[rows] = chunk.table.pos
        neg.ravel()[rows] = chunk.table.neg

    drain(producers, put, threads=2)
    np.testing.assert_array_equal(pos.ravel(), expected.pos)
    np.testing.assert_array_equal(neg.ravel(), expected.neg)
    assert sum(1 for _ in replicate_chunks(table, 3, Streams.for_segments(2, table.n_segments, "b"))) >= 1


def test_drain_keeps_each_producer_in_order_and_raises():
    from aucpr_stats.resample.threads import drain

    seen: list = []

    def producer(k):
        for i in range(50):
            yield k, i

    drain([producer(k) for k in range(4)], seen.append, threads=3)
    assert sorted(seen) == [(k, i) for k in range(4) for i in range(50)]
    for k in range(4):  # a producer is advanced by one thread at a time: its items come in order
        mine = [i for kk, i in seen if kk == k]
        assert mine == sorted(mine)

    def broken():
        yield 1
        raise ValueError("producer failed")

    for threads in (1, 2):
        with pytest.raises(ValueError, match="producer failed"):
            drain([broken(), producer(0)], lambda item: None, threads=threads)
        with pytest.raises(ZeroDivisionError):
            drain([producer(1)], lambda item: 1 / 0, threads=threads)
