"""Ungrouped tie tables from per-class sorts: ranges sorted in parallel, deferred merge, collapsed rows.

Oracles: numpy's own sort and searchsorted on the whole arrays, the brute-force
tie table of test_ties, and a row-by-row collapse of the full table written
here from the definition (consecutive rows without positives become one row).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

import attrs

import aucpr_stats
from aucpr_stats.estimators.engine import evaluate
from aucpr_stats.estimators.registry import records
from aucpr_stats.ingest import read
from aucpr_stats.front_door import front_door
from aucpr_stats.ties import TieTable
from aucpr_stats.tables import Tuning, pivots_from_sample, rank_among, sort_classes, tie_table_from_classes
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.estimators import ROC_ESTIMATORS

from .test_ties import _scores, brute_force_tie_table, rows_of

ALL_ESTIMATORS = {**PR_ESTIMATORS, **ROC_ESTIMATORS}
INVARIANT = [name for name, record in ALL_ESTIMATORS.items() if record.reads in ("positive_rows", "negative_runs")]

_labelled = st.lists(st.tuples(_scores, st.booleans()), min_size=0, max_size=60)


def _split(scores, labels, pivots, rng):
    """Per range of values (cut at ``pivots``, a pivot going up), each class's scores as random chunks."""
    where = np.searchsorted(np.asarray(pivots, dtype=float), scores, side="right")
    pos_parts, neg_parts = [], []
    for k in range(len(pivots) + 1):
        for parts, cls in ((pos_parts, True), (neg_parts, False)):
            values = rng.permutation(scores[(where == k) & (labels == cls)])
            cuts = np.sort(rng.integers(0, values.size + 1, size=rng.integers(0, 4)))
            parts.append(list(np.split(values, cuts)))
    return pos_parts, neg_parts


def brute_force_collapse(table: TieTable) -> list[tuple[float, int, int]]:
    """One-segment table rows with every run of negative-only rows merged (lowest score kept)."""
    out: list[list] = []
    for score, pos, neg in rows_of(table)[0]:
        if pos == 0 and out and out[-1][1] == 0:
            out[-1][0], out[-1][2] = score, out[-1][2] + neg
        else:
            out.append([score, pos, neg])
    return [tuple(r) for r in out]


def _pivots_among(scores, draw_index):
    values = np.unique(scores)
    if values.size == 0:
        return []
    return sorted({float(values[i % values.size]) for i in draw_index})


@settings(max_examples=150, deadline=None)
@given(data=_labelled, pivot_index=st.lists(st.integers(0, 1000), max_size=3), threads=st.sampled_from([1, 3]),
       seed=st.integers(0, 2**32 - 1))
def test_sorted_ranges_match_one_sort_and_brute_force(data, pivot_index, threads, seed):
    scores = np.array([r[0] for r in data], dtype=float)
    labels = np.array([r[1] for r in data], dtype=bool)
    # pivots at data values: tied scores equal to a pivot must all land in the upper range
    pivots = _pivots_among(scores, pivot_index)
    pos_parts, neg_parts = _split(scores, labels, pivots, np.random.default_rng(seed))
    classes = sort_classes(pos_parts, neg_parts, threads=threads)
    np.testing.assert_array_equal(classes.pos, np.sort(scores[labels]))
    np.testing.assert_array_equal(classes.neg, np.sort(scores[~labels]))
    np.testing.assert_array_equal(classes.neg_below, np.searchsorted(np.sort(scores[~labels]), classes.pos))

    deferred = TieTable.deferred(classes)
    assert deferred.n_pos.tolist() == [labels.sum()] and deferred.n_neg.tolist() == [(~labels).sum()]
    collapsed = deferred.collapsed()
    assert deferred.is_deferred  # counts and the collapsed rows never merge the classes
    full = tie_table_from_classes(scores[labels], scores[~labels])
    # whatever the ranges: the rows of a row-by-row collapse, and of the bootstrap's eager collapse
    assert rows_of(collapsed)[0] == brute_force_collapse(full)
    if full.n_rows:
        assert rows_of(collapsed) == rows_of(TieTable.collapsed(full))
    # the merged table, built on first read
    zeros = np.zeros(scores.size, dtype=np.int64)
    assert rows_of(deferred) == brute_force_tie_table(zeros, scores, labels, 1)
    assert not deferred.is_deferred


@settings(max_examples=150, deadline=None)
@given(data=_labelled)
def test_positive_rows_of_deferred_and_merged_tables_are_identical(data):
    scores = np.array([r[0] for r in data], dtype=float)
    labels = np.array([r[1] for r in data], dtype=bool)
    classes = sort_classes([[scores[labels]]], [[scores[~labels]]])
    deferred = TieTable.deferred(classes)
    merged = classes.full_table()
    for a, b in zip(deferred.positive_rows(), merged.positive_rows()):
        np.testing.assert_array_equal(a, b)
    if labels.any() and (~labels).any():
        # bit for bit: the same arrays in the same order
        published = PR_ESTIMATORS["average_precision"].under("published")
        assert published(deferred)[0] == published(merged)[0]
        assert deferred.is_deferred


@pytest.mark.parametrize("name", INVARIANT)
@settings(max_examples=80, deadline=None)
@given(data=_labelled)
def test_marked_estimators_do_not_see_the_collapse(name, data):
    scores = np.array([r[0] for r in data] + [0.0, 0.0], dtype=float)
    labels = np.array([r[1] for r in data] + [True, False], dtype=bool)
    full = tie_table_from_classes(scores[labels], scores[~labels])
    rows = brute_force_collapse(full)
    collapsed = TieTable([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [0, len(rows)])
    deferred = TieTable.deferred(sort_classes([[scores[labels]]], [[scores[~labels]]]))
    expected = ALL_ESTIMATORS[name](full)[0]
    assert ALL_ESTIMATORS[name](collapsed)[0] == pytest.approx(expected, abs=1e-12)
    assert ALL_ESTIMATORS[name](deferred.collapsed())[0] == pytest.approx(expected, abs=1e-12)


def test_the_unmarked_estimators_do_depend_on_the_negative_runs():
    # the marks are not vacuous: the mean and median of the precisions within a
    # recall level change when the negatives of a run are merged
    full = TieTable([4.0, 3.0, 2.0, 1.0], [1, 0, 0, 1], [0, 1, 1, 1], [0, 4])
    collapsed = TieTable([4.0, 2.0, 1.0], [1, 0, 1], [0, 2, 1], [0, 3])
    for name in ("interpolated_mean", "interpolated_median"):
        assert name not in INVARIANT
        assert ALL_ESTIMATORS[name](full)[0] != pytest.approx(ALL_ESTIMATORS[name](collapsed)[0])


def test_rank_among_by_blocks_matches_searchsorted():
    rng = np.random.default_rng(3)
    haystack = np.sort(np.round(rng.standard_normal(200_000), 2))
    needles = np.sort(np.concatenate([np.round(rng.standard_normal(60_000), 2), [-9.0, 9.0]]))
    np.testing.assert_array_equal(rank_among(haystack, needles, block=512),
                                  np.searchsorted(haystack, needles, side="left"))


def test_pivots_balance_the_work_and_skip_non_finite_values():
    rng = np.random.default_rng(0)
    score = rng.standard_normal(20_000)
    positive = score > 1.0  # positives weigh more: the pivot moves up
    pivots = pivots_from_sample(np.append(score, [np.nan, np.inf]), np.append(positive, [True, True]), 2)
    assert pivots.size == 1 and np.isfinite(pivots).all()
    weight = np.where(positive, 4.0, 1.0)
    assert weight[score < pivots[0]].sum() == pytest.approx(weight.sum() / 2, rel=0.01)
    assert pivots_from_sample(np.ones(100), np.zeros(100, dtype=bool), 4).size <= 1  # ties: one distinct pivot
    assert pivots_from_sample(score[:3], positive[:3], 4).size == 0


def _cohort(seed: int, n: int, prevalence: float, decimals: int | None) -> pl.DataFrame:
    """Outcome and a score shifted by one unit for positives; rounded when ``decimals`` is given."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    s = rng.standard_normal(n) + y
    return pl.DataFrame({"y": y, "s": s if decimals is None else np.round(s, decimals)})


def _same_merged_table(a: TieTable, b: TieTable) -> None:
    for column in ("score", "pos", "neg", "offsets"):
        np.testing.assert_array_equal(getattr(a, column), getattr(b, column))


#: The multi-range, multi-thread road from 2,000 rows on, with 3 ranges.
RANGES = Tuning(class_sort_parallel_min_rows=2_000, value_ranges=3)


def ranged(frame, estimator: str, ties: str = "interpolate", **arguments):
    """The table of one group read in three ranges of values (the reader's seam), and its estimates."""
    chosen = records("aucpr", [estimator], ties)
    ingested = read(front_door("aucpr", frame, None, "y", "s", None, records=chosen, ties=ties, tuning=RANGES,
                               **arguments))
    return ingested.ties, evaluate(ingested.ties, chosen)[0]


@pytest.mark.parametrize("decimals", [None, 1])
def test_ingest_in_ranges_matches_sklearn_and_the_single_range_path(decimals):
    frame = _cohort(11, 30_000, 0.2, decimals)  # rounded: heavy ties, also at the pivots
    y, s = frame["y"].to_numpy(), frame["s"].to_numpy()
    single = aucpr_stats.aucpr(frame, "y", "s", estimator="all", ties="published")  # 30,000 rows: one range
    for data in (frame, frame.lazy(), frame.to_pandas(), frame.to_arrow()):
        table, estimate = ranged(data, "average_precision", ties="published")
        assert table.is_deferred  # average precision alone never merges the classes
        # three ranges were sorted; a LazyFrame is read once, without a sample for the pivots: one range
        assert table.source.pos_at.size - 1 == (1 if isinstance(data, pl.LazyFrame) else 3)
        assert estimate == pytest.approx(average_precision_score(y, s), abs=1e-12)
        for name in single.estimators:  # every estimator on the three ranges, the merged table included
            _, value = ranged(data, name, ties="published")
            assert value == pytest.approx(single.to_frame().filter(pl.col("estimator") == name)["estimate"][0],
                                          abs=1e-12), name
        _same_merged_table(table, single.ties)


def test_ingest_in_ranges_still_reports_bad_scores():
    s = np.linspace(0, 1, 5_000)
    s[[10, 4000]] = np.nan
    frame = pl.DataFrame({"y": np.arange(s.size) % 3 == 0, "s": s})
    with pytest.raises(aucpr_stats.MissingValueError, match="2 of 5000 rows"):
        ranged(frame, "average_precision")
    table, estimate = ranged(frame, "average_precision", missing="drop")
    keep = ~np.isnan(s)
    assert table.source.pos_at.size - 1 == 3
    assert estimate == pytest.approx(average_precision_score(frame["y"].to_numpy()[keep], s[keep]), abs=1e-12)


def test_bootstrap_of_one_group_does_not_depend_on_the_road_or_the_ranges():
    # ungrouped (deferred table, three ranges) and grouped by a constant (merged table):
    # the same reduced table, hence the same draws for the same seed
    rng = np.random.default_rng(5)
    y = rng.random(6_000) < 0.3
    s = np.round(rng.standard_normal(y.size) + y, 2)
    frame = pl.DataFrame({"y": y, "s": s, "g": np.zeros(y.size, dtype=np.int64)})
    for estimator in ("average_precision", "lower_trapezoid"):
        # the result with the table read in three ranges (a deferred table)
        alone = attrs.evolve(aucpr_stats.aucpr(frame, "y", "s", estimator=estimator),
                             ties=ranged(frame, estimator)[0])
        # the same group through the merged road: the table of another call, read in full
        other = aucpr_stats.aucpr(frame, "y", "s", estimator=estimator).ties
        merged = attrs.evolve(alone, ties=TieTable(other.score, other.pos, other.neg, other.offsets))
        a = alone.conf_int(method="bootstrap", n_boot=200, seed=3)
        b = merged.conf_int(method="bootstrap", n_boot=200, seed=3)
        assert alone.ties.is_deferred  # the bootstrap read the collapsed table only
        for column in ("lower", "upper", "se"):
            assert a[column].to_list() == b[column].to_list()


@pytest.mark.parametrize("decimals", [None, 1])
def test_a_scanned_file_takes_cells_or_class_scores_by_how_distinct_the_scores_are(tmp_path, decimals):
    frame = _cohort(8, 20_000, 0.15, decimals)
    y, s = frame["y"].to_numpy(), frame["s"].to_numpy()
    path = tmp_path / "scores.parquet"
    frame.write_parquet(path)
    scanned = aucpr_stats.aucpr(pl.scan_parquet(path), "y", "s", estimator="average_precision", ties="published")
    in_memory = aucpr_stats.aucpr(frame, "y", "s", estimator="average_precision", ties="published")
    # mostly distinct scores: the class scores (a deferred table); few: the streaming cells
    assert scanned.ties.is_deferred == (decimals is None)
    assert scanned.estimate == in_memory.estimate == pytest.approx(average_precision_score(y, s), abs=1e-12)
    interpolated = aucpr_stats.aucpr(pl.scan_parquet(path), "y", "s", estimator="average_precision")
    assert interpolated.ties.is_deferred == (decimals is None)  # crossing blocks reads the collapsed table only
    assert interpolated.estimate == aucpr_stats.aucpr(frame, "y", "s", estimator="average_precision").estimate
    _same_merged_table(scanned.ties, in_memory.ties)
