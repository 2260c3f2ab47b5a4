"""The deferred grouped tie table (issue 19): the same numbers as the eager builder, without merging classes.

:func:`aucpr_stats.tables.deferred_tie_table` sorts the classes of
every group and defers the merge; statistics that read only the collapsed
table (average precision, the trapezoids, A') never merge. Checked here:

* its collapsed table against :meth:`TieTable.collapsed` of the eager table
  (another algorithm: runs merged into the next kept row), bit for bit, and
  against the one-group :func:`~aucpr_stats.tables.class_sort.collapsed_rows`
  group by group;
* its materialised arrays against the eager builder, bit for bit (0.0 and
  -0.0 included), on 1 and 3 threads and on both key widths;
* the estimates (every estimator reading the collapsed table, both ``ties=``
  conventions) against the eager table, bit for bit, and average precision
  against scikit-learn;
* the API road: empty levels, one-class groups, ``direction=``, missing
  scores, weights and folds (the eager road), with the table left unmerged
  where nothing reads it.
"""

from __future__ import annotations

import warnings

import attrs
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from aucpr_stats import auroc
from aucpr_stats.estimators import PR_ESTIMATORS, ROC_ESTIMATORS
from aucpr_stats.estimators.engine import evaluate
from aucpr_stats.estimators.registry import records
from aucpr_stats.ingest import read
from aucpr_stats.front_door import front_door
from aucpr_stats.tables import GroupedClasses, Tuning, collapsed_rows, deferred_tie_table, tie_table_from_rows
from aucpr_stats.ties import TieTable

# heavy ties, signed zeros and neighbours one ulp apart
POOL = np.array([0.0, -0.0, 1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), -1.0, 2.5, -3.75, 0.3, 0.1 + 0.2])

#: Estimators that read the collapsed table only (the deferred table must not merge for them).
COLLAPSED_READERS = [r for r in (*PR_ESTIMATORS.values(), *ROC_ESTIMATORS.values()) if r.reads != "every_row"]


def bits(values) -> np.ndarray:
    values = np.asarray(values)
    return values.view(np.uint64) if values.dtype.kind == "f" else values


def assert_same_table(got: TieTable, expected: TieTable) -> None:
    for name in ("offsets", "score", "pos", "neg"):
        a, b = getattr(got, name), getattr(expected, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(bits(a), bits(b), err_msg=name)


#: Every group size takes the bucket road (the one the deferred table serves).
BUCKETS = Tuning(bucket_min_rows=0)

#: The eager road: one packed-key argsort, the classes merged at once.
EAGER = Tuning(bucket_min_rows=10**12)


@pytest.fixture(params=["1 thread", "3 threads", "64-bit keys", "3 threads, 64-bit keys"])
def threads(request, monkeypatch) -> Tuning:
    """Small data cut into several ranges and runs of groups, as large data is; or 64-bit bucket keys."""
    tuning = BUCKETS
    if request.param.startswith("3 threads"):
        monkeypatch.setenv("AUCPR_STATS_THREADS", "3")
        tuning = Tuning(bucket_min_rows=0, bucket_parallel_min_rows=1, class_sort_parallel_min_rows=1,
                        range_bits=3)  # ranges of 8 rows
    else:
        monkeypatch.setenv("AUCPR_STATS_THREADS", "1")
    if request.param.endswith("64-bit keys"):
        tuning = attrs.evolve(tuning, key32_bits=2)
    return tuning


grouped_rows = st.integers(2, 6).flatmap(lambda n_groups: st.tuples(
    st.just(n_groups),
    st.lists(st.tuples(st.integers(0, n_groups - 1), st.sampled_from(range(POOL.size)), st.booleans()),
             min_size=0, max_size=120)))


def rows_of(drawn):
    n_groups, rows = drawn
    group = np.array([r[0] for r in rows], dtype=np.int64)
    score = POOL[np.array([r[1] for r in rows], dtype=np.int64)]
    positive = np.array([r[2] for r in rows], dtype=bool)
    return group, score, positive, n_groups


# the fixture's tuning and thread setting are the same for every example
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=grouped_rows)
def test_deferred_table_matches_the_eager_builder(threads, drawn):
    group, score, positive, n_groups = rows_of(drawn)
    eager = tie_table_from_rows(group, score, positive, n_groups, threads)
    table = deferred_tie_table(group, score, positive, n_groups, threads)
    assert table.is_deferred and table.n_segments == n_groups
    np.testing.assert_array_equal(table.n_pos, eager.n_pos)
    np.testing.assert_array_equal(table.n_neg, eager.n_neg)
    assert_same_table(table.collapsed(), eager.collapsed())
    assert_same_table(table.merged_negative_runs(), eager.merged_negative_runs())
    with np.errstate(all="ignore"):
        for record in COLLAPSED_READERS:
            for convention in ("interpolate", "published"):
                chosen = record.under(convention)
                np.testing.assert_array_equal(bits(evaluate(table, [chosen])), bits(evaluate(eager, [chosen])),
                                              err_msg=f"{record.name}, {convention}")
    assert table.is_deferred  # counts, the collapsed table and its estimators never merge the classes
    chosen = np.flatnonzero(np.arange(n_groups) % 2 == 0)[::-1]  # a subset, out of order
    part = table.take(chosen)
    assert part.is_deferred
    assert_same_table(part.collapsed(), eager.take(chosen).collapsed())
    assert_same_table(part, eager.take(chosen))
    assert_same_table(table, eager)  # reading the arrays merges: the eager builder's table, bit for bit
    assert not table.is_deferred


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=grouped_rows)
def test_collapsed_rows_match_the_one_group_builder(drawn):
    # a second, independent reading: collapsed_rows of each group's sorted classes
    group, score, positive, n_groups = rows_of(drawn)
    collapsed = deferred_tie_table(group, score, positive, n_groups, BUCKETS).collapsed()
    for k in range(n_groups):
        pos = np.sort(score[(group == k) & positive])
        neg = np.sort(score[(group == k) & ~positive])
        expected = collapsed_rows(pos, neg, np.searchsorted(neg, pos, side="left"))
        rows = slice(collapsed.offsets[k], collapsed.offsets[k + 1])
        np.testing.assert_array_equal(collapsed.score[rows], expected[0])  # values (0.0 == -0.0 here)
        np.testing.assert_array_equal(collapsed.pos[rows], expected[1])
        np.testing.assert_array_equal(collapsed.neg[rows], expected[2])


def test_one_group_at_a_time_reads_positive_rows():
    rng = np.random.default_rng(2)
    group = rng.integers(0, 3, 300)
    score = np.round(rng.standard_normal(300), 1)
    positive = rng.random(300) < 0.3
    table = deferred_tie_table(group, score, positive, 3, BUCKETS)
    with pytest.raises(ValueError, match="one-segment"):
        table.positive_rows()
    eager = tie_table_from_rows(group, score, positive, 3)
    for k in range(3):
        alone = table.segment(k)
        assert alone.is_deferred
        for a, b in zip(alone.positive_rows(), eager.segment(k).positive_rows()):
            np.testing.assert_array_equal(a, b)
    assert repr(table) == "TieTable(deferred, n_segments=3)"


def test_continuous_scores_many_rows_against_sklearn():
    # the fast case (every score distinct) on the threaded roads, against scikit-learn group by group
    tuning = Tuning(bucket_min_rows=0, bucket_parallel_min_rows=1000, class_sort_parallel_min_rows=1000,
                    range_bits=12)
    rng = np.random.default_rng(7)
    n, n_groups = 40_000, 7
    group = rng.integers(0, n_groups, n)
    positive = rng.random(n) < 0.2
    score = rng.standard_normal(n) + positive
    table = deferred_tie_table(group, score, positive, n_groups, tuning)
    got = evaluate(table, [PR_ESTIMATORS["average_precision"].under("published")])[:, 0]
    assert table.is_deferred
    expected = [average_precision_score(positive[group == k], score[group == k]) for k in range(n_groups)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert_same_table(table.collapsed(), tie_table_from_rows(group, score, positive, n_groups).collapsed())


def test_fewer_rows_than_the_bucket_road_stay_eager():
    group = np.array([0, 1, 1, 0])
    table = deferred_tie_table(group, np.array([1.0, 2.0, 3.0, 0.5]), np.array([True, False, True, False]), 2)
    assert not table.is_deferred


# ------------------------------------------------------------------ the API road
def cohort(seed: int = 5, n: int = 3000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 5, n)
    y = rng.random(n) < 0.25
    s = np.round(rng.standard_normal(n) + y, 1)  # ties within and across classes
    y[g == 3] = False  # a group without positives
    return pl.DataFrame({"g": g, "y": y, "s": s})


def by_road(data, metric, tuning, estimator, ties="interpolate", **arguments):
    """The tables of a call read on one road of the table factory, and its estimates (the reader's seam)."""
    chosen = records(metric, [estimator], ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ingested = read(front_door(metric, data, None, "y", "s", "g", records=chosen, ties=ties, tuning=tuning,
                                   **arguments))
    return ingested, evaluate(ingested.ties, chosen)


@pytest.mark.parametrize("options", [{}, {"ties": "published"}, {"direction": "lower"},
                                     {"estimator": "binormal"}, {"estimator": "lower_trapezoid"}])
def test_reader_same_estimates_on_both_roads(options):
    data = cohort()
    options = {"estimator": "average_precision", **options}
    got, got_estimates = by_road(data, "aucpr", BUCKETS, **options)
    expected, expected_estimates = by_road(data, "aucpr", EAGER, **options)
    np.testing.assert_array_equal(bits(got_estimates), bits(expected_estimates))
    assert got.notes == expected.notes
    if options["estimator"] != "binormal":  # (binormal reads every row: the usable groups' table is merged)
        assert got.ties.is_deferred
    assert_same_table(got.ties, expected.ties)


def test_reader_missing_scores_and_a_prime():
    data = cohort(6).with_columns(pl.when(pl.int_range(pl.len()) % 7 == 0).then(None).otherwise(pl.col("s"))
                                  .alias("s"))
    got, got_estimates = by_road(data, "auroc", BUCKETS, "a_prime", missing="drop")
    _, expected_estimates = by_road(data, "auroc", EAGER, "a_prime", missing="drop")
    assert got.ties.is_deferred
    np.testing.assert_array_equal(bits(got_estimates), bits(expected_estimates))
    assert np.isnan(got_estimates[3]).all()  # the group without positives
    public = auroc(data, "y", "s", by="g", missing="drop")  # the entry point's default road: the same estimates
    np.testing.assert_array_equal(bits(public.estimates), bits(got_estimates))


def test_reader_unused_levels_weights_and_folds():
    data = cohort(7).with_columns(pl.col("g").cast(pl.String).cast(pl.Enum(["0", "1", "2", "3", "4", "9"])),
                                  w=pl.lit(1.5), f=pl.int_range(pl.len()) % 3)
    for arguments in ({}, {"weights": "w"}, {"fold": "f"}):  # an empty level; weights; folds
        got, got_estimates = by_road(data, "aucpr", BUCKETS, "average_precision", **arguments)
        expected, expected_estimates = by_road(data, "aucpr", EAGER, "average_precision", **arguments)
        np.testing.assert_array_equal(bits(got_estimates), bits(expected_estimates))
        assert_same_table(got.ties, expected.ties)
    assert np.isnan(got_estimates[-1]).all()  # the unused level "9"


def test_grouped_classes_take_keeps_each_groups_classes():
    # group 0: negatives [1], positives [2, 3]; group 1: negatives [0.5, 4], no positives
    source = GroupedClasses(np.array([1.0, 2.0, 3.0, 0.5, 4.0]), np.array([0, 1, 3, 5, 5]), np.array([1, 1]),
                            np.zeros(2, dtype=bool))
    part = source.take([1, 0, 1])
    np.testing.assert_array_equal(part.neg_below, [1, 1])
    np.testing.assert_array_equal(part.values, [0.5, 4.0, 1.0, 2.0, 3.0, 0.5, 4.0])
    np.testing.assert_array_equal(part.bounds, [0, 2, 2, 3, 5, 7, 7])
    np.testing.assert_array_equal(part.n_pos, [0, 2, 0])
