"""The stratified counts bootstrap (aucpr_stats.resample) against a plain row-resampling bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from aucpr_stats.ties import TieTable
from aucpr_stats.tables import tie_table_from_sorted
from aucpr_stats import resample as boot
from aucpr_stats.estimators import PR_ESTIMATORS, average_precision, reduction_for
from aucpr_stats.estimators.average_precision import average_precision_replicates
from aucpr_stats.estimators.threshold_trapezoid import threshold_trapezoid
from aucpr_stats.intervals import percentile_interval, replicate_summary
from aucpr_stats.resample.samplers import PoissonFillSampler, UnitSampler
from aucpr_stats.simulate.arms import INTERVAL_METHODS as STUDY_ARMS
from tests.conftest import random_scores


def _table(y, s) -> TieTable:
    order = np.argsort(-s, kind="stable")
    return tie_table_from_sorted(np.zeros(y.size, dtype=np.int64), s[order], y[order], 1)


def _row_bootstrap(y, s, stat, n_rep: int, rng) -> np.ndarray:
    """The textbook stratified bootstrap: resample positive rows and negative rows with replacement."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    out = np.empty(n_rep)
    for b in range(n_rep):
        idx = np.concatenate([rng.choice(pos, pos.size), rng.choice(neg, neg.size)])
        out[b] = stat(y[idx], s[idx])
    return out


def _ap_rows(y, s) -> float:
    """Average precision straight from the rows: mean over positives of the precision at 'score >= s_j'."""
    admitted = s[None, :] >= s[y][:, None]
    return float(np.mean((admitted & y).sum(axis=1) / admitted.sum(axis=1)))


def test_row_oracle_is_sklearn_average_precision():
    rng = np.random.default_rng(3)
    for ties in (False, True):
        y, s = random_scores(rng, 90, prevalence=0.3, ties=ties)
        assert _ap_rows(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)


def _trapezoid_rows(y, s) -> float:
    return float(threshold_trapezoid(_table(y, s))[0])


def _same_distribution(a: np.ndarray, b: np.ndarray) -> None:
    """Mean, sd and quantiles agree within Monte Carlo error (about 4.5 standard errors)."""
    r_a, r_b = a.size, b.size
    sd = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2)
    assert abs(a.mean() - b.mean()) < 4.5 * sd * np.sqrt(1 / r_a + 1 / r_b)
    # sd of a sample sd is about sd * sqrt((kurtosis - 1) / (4 r)); allow a generous kurtosis of 5
    assert abs(a.std(ddof=1) - b.std(ddof=1)) < 4.5 * sd * np.sqrt(1.0 * (1 / r_a + 1 / r_b))
    for p in (0.025, 0.25, 0.5, 0.75, 0.975):
        # the other sample's ECDF at this sample's quantile: binomial error sqrt(p(1-p)/r)
        q = np.quantile(a, p)
        ecdf = np.mean(b <= q)
        assert abs(ecdf - p) < 4.5 * np.sqrt(p * (1 - p) * (1 / r_a + 1 / r_b)) + 1 / min(r_a, r_b)


@pytest.mark.parametrize("ties", [False, True])
def test_counts_bootstrap_of_average_precision_matches_row_resampling(ties):
    rng = np.random.default_rng(11)
    y, s = random_scores(rng, 150, prevalence=0.2, ties=ties)
    n_rep = 3000
    rows = _row_bootstrap(y, s, _ap_rows, n_rep, np.random.default_rng(1))
    t = _table(y, s)
    published = PR_ESTIMATORS["average_precision"].under("published")  # scikit-learn's, as the rows' oracle
    counts = boot.bootstrap_estimates(t, published, n_boot=n_rep, seed=2)[0]
    merged = boot.bootstrap_estimates(t.merged_negative_runs(), published, n_boot=n_rep, seed=3)[0]
    _same_distribution(counts, rows)
    _same_distribution(merged, rows)


def test_counts_bootstrap_of_threshold_trapezoid_matches_row_resampling():
    rng = np.random.default_rng(12)
    y, s = random_scores(rng, 120, prevalence=0.3, ties=True)
    n_rep = 2000
    rows = _row_bootstrap(y, s, _trapezoid_rows, n_rep, np.random.default_rng(4))
    counts = boot.bootstrap_estimates(_table(y, s), threshold_trapezoid, n_boot=n_rep, seed=5)[0]
    _same_distribution(counts, rows)


def _heavy_ties_two_segments() -> TieTable:
    return TieTable([5, 4, 3, 2, 1, 9, 8, 7], [30, 0, 5, 1, 4, 100, 200, 0], [3, 50, 2, 7, 0, 10, 0, 400],
                    [0, 5, 8])


@pytest.mark.parametrize("klass", ["pos", "neg"])
def test_both_samplers_draw_multinomial_counts(klass):
    """Per-row mean, variance and covariance of the drawn counts against the multinomial's."""
    t = _heavy_ties_two_segments()
    counts = getattr(t, klass)
    totals = t.segment_sum(counts)
    n = totals[t.segment_ids()]
    p = counts / n
    units = UnitSampler(t, counts)
    poisson = PoissonFillSampler(t, counts, units, np.arange(t.n_segments))
    rng = np.random.default_rng(21)
    r = 20000
    for sampler in (units, poisson):
        # segment by segment, as the bootstrap draws them
        draws = np.concatenate([sampler.draw(k, rng, r) for k in range(t.n_segments)], axis=1)
        np.testing.assert_array_equal(draws[:, :5].sum(axis=1), totals[0])  # exact totals
        np.testing.assert_array_equal(draws[:, 5:].sum(axis=1), totals[1])
        var = n * p * (1 - p)
        busy = var > 0
        z = (draws.mean(axis=0)[busy] - (n * p)[busy]) / np.sqrt(var[busy] / r)
        assert np.all(np.abs(z) < 4.5)
        # sample variance: relative sd about sqrt(2 / r) for near-normal counts
        assert np.all(np.abs(draws.var(axis=0)[busy] / var[busy] - 1) < 4.5 * np.sqrt(2.5 / r))
        assert np.all(draws[:, ~busy & (counts == 0)] == 0)
        cov = np.cov(draws[:, 0], draws[:, 2])[0, 1]
        expected = -n[0] * p[0] * p[2]
        assert abs(cov - expected) < 4.5 * np.sqrt(var[0] * var[2] / r)


def test_replicates_keep_class_sizes_and_layout():
    t = _heavy_ties_two_segments()
    reps = boot.stratified_counts(t, n_boot=7, seed=1, chunk_size=3)
    assert reps.n_segments == 14
    np.testing.assert_array_equal(reps.n_pos, np.tile(t.n_pos, 7))  # replicate-major
    np.testing.assert_array_equal(reps.n_neg, np.tile(t.n_neg, 7))
    np.testing.assert_array_equal(reps.score, np.tile(t.score, 7))


def test_same_seed_same_replicates_and_generators_accepted():
    rng = np.random.default_rng(31)
    y, s = random_scores(rng, 200, prevalence=0.1)
    t = _table(y, s)
    a = boot.bootstrap_estimates(t, [average_precision, threshold_trapezoid], n_boot=50, seed=7)
    b = boot.bootstrap_estimates(t, [average_precision, threshold_trapezoid], n_boot=50, seed=7)
    c = boot.bootstrap_estimates(t, [average_precision, threshold_trapezoid], n_boot=50, seed=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    d = boot.bootstrap_estimates(t, average_precision, n_boot=50, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(d, a[0])
    assert a.shape == (2, 1, 50)


def test_merge_negative_runs_keeps_average_precision_exactly():
    """For the published (scikit-learn) average precision: a merged row's negatives join its tie block."""
    average_precision = PR_ESTIMATORS["average_precision"].under("published")
    rng = np.random.default_rng(41)
    for ties in (False, True):
        y, s = random_scores(rng, 300, prevalence=0.15, ties=ties)
        t = _table(y, s)
        merged = t.merged_negative_runs()
        assert merged.n_rows < t.n_rows
        np.testing.assert_array_equal(merged.n_pos, t.n_pos)
        np.testing.assert_array_equal(merged.n_neg, t.n_neg)
        assert average_precision(merged)[0] == pytest.approx(average_precision(t)[0], abs=1e-13)
        # and on resampled counts of the original table, merged the same way
        reps = boot.stratified_counts(t, n_boot=20, seed=1)
        np.testing.assert_allclose(average_precision(reps.merged_negative_runs()), average_precision(reps),
                                   atol=1e-13)


def test_multi_segment_bootstrap_resamples_within_each_segment():
    rng = np.random.default_rng(51)
    y1, s1 = random_scores(rng, 100, prevalence=0.5)
    y2, s2 = random_scores(rng, 300, prevalence=0.1)
    y2 = y2.copy()
    s2 = s2 - 10  # segments do not share scores
    order1, order2 = np.argsort(-s1), np.argsort(-s2)
    group = np.repeat([0, 1], [100, 300])
    t = tie_table_from_sorted(group, np.concatenate([s1[order1], s2[order2]]),
                              np.concatenate([y1[order1], y2[order2]]), 2)
    reps = boot.bootstrap_estimates(t, average_precision, n_boot=400, seed=3)
    assert reps.shape == (2, 400)
    singles = [boot.bootstrap_estimates(t.segment(k), average_precision, n_boot=400, seed=4)[0] for k in (0, 1)]
    for k in (0, 1):
        _same_distribution(reps[k], singles[k])


def test_percentile_interval_and_summary():
    x = np.random.default_rng(1).normal(size=(3, 1001))
    lower, upper = percentile_interval(x, 0.9)
    np.testing.assert_allclose(lower, np.quantile(x, 0.05, axis=1))
    np.testing.assert_allclose(upper, np.quantile(x, 0.95, axis=1))
    x[0, :10] = np.nan
    x[1] = np.nan
    lower, upper = percentile_interval(x, 0.9)
    assert lower[0] == pytest.approx(np.quantile(x[0, 10:], 0.05))
    assert np.isnan(lower[1]) and np.isnan(upper[1])
    summary = replicate_summary(x)
    assert summary["n_boot"].tolist() == [991, 0, 1001]


def test_study_interval_is_the_percentile_interval_conf_int_gives():
    """The coverage study's arm is conf_int's bootstrap: data set k is the group ``sim = k`` of a user's result."""
    import polars as pl

    from aucpr_stats import aucpr

    rng = np.random.default_rng(61)
    y, s = random_scores(rng, 200, prevalence=0.2)
    t = _table(y, s)
    arm = STUDY_ARMS["bootstrap"]
    record = PR_ESTIMATORS["average_precision"]
    lower, upper, location = arm(t, None, record, 0.9, np.random.default_rng(5), {"n_boot": 300})
    frame = pl.DataFrame({"sim": np.zeros(y.size, dtype=np.int64), "y": y, "s": s})
    ci = aucpr(frame, "y", "s", by="sim", estimator="average_precision").conf_int(
        method="bootstrap", level=0.9, n_boot=300, seed=np.random.default_rng(5))
    assert (lower[0], upper[0], location[0]) == (ci["lower"][0], ci["upper"][0], ci["boot_median"][0])
    # ... which is a percentile interval of the stratified replicates of the group's own stream
    streams = boot.Streams.for_keys(np.random.default_rng(5), frame.select("sim").unique(), ["sim"], "bootstrap")
    reps = boot.bootstrap_estimates(t.collapsed(), record, n_boot=300, streams=streams)
    assert lower[0] == pytest.approx(np.quantile(reps[0], 0.05))
    assert upper[0] == pytest.approx(np.quantile(reps[0], 0.95))


def _random_tables(seed: int):
    """Grouped tables with and without ties, then bootstrap draws of them (zero-count rows included)."""
    rng = np.random.default_rng(seed)
    for trial in range(12):
        n, groups = int(rng.integers(5, 250)), int(rng.integers(1, 4))
        y = rng.random(n) < rng.uniform(0.05, 0.6)
        s = rng.normal(size=n) + y
        if trial % 2:
            s = np.round(s, 1)
        g = np.sort(rng.integers(0, groups, n))
        order = np.lexsort((-s, g))
        t = tie_table_from_sorted(g[order], s[order], y[order], groups)
        usable = np.flatnonzero((t.n_pos > 0) & (t.n_neg > 0))
        if usable.size == 0:
            continue
        t = t.take(usable)
        yield t
        yield boot.stratified_counts(t, 3, seed=trial)


_EVERY_RECORD = [r.under(ties) for r in PR_ESTIMATORS.values() for ties in ("interpolate", "published")]


@pytest.mark.parametrize("reduction,records", [
    (TieTable.merged_negative_runs, [r for r in _EVERY_RECORD if r.reads == "positive_rows"]),
    (TieTable.collapsed, [r for r in _EVERY_RECORD if r.reads in ("positive_rows", "negative_runs")]),
])
def test_table_reductions_leave_their_estimators_unchanged(reduction, records):
    assert records  # not vacuous
    for t in _random_tables(71):
        reduced = reduction(t)
        assert reduced.n_rows <= t.n_rows
        np.testing.assert_array_equal(reduced.n_pos, t.n_pos)
        np.testing.assert_array_equal(reduced.n_neg, t.n_neg)
        for record in records:
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(record(reduced), record(t), atol=1e-12, err_msg=repr(record))


def test_reduce_for_picks_the_strongest_valid_reduction():
    def records(*names):
        return [PR_ESTIMATORS[name] for name in names]

    assert reduction_for(records("average_precision")) is TieTable.collapsed  # crossing a block reads its negatives
    assert reduction_for([PR_ESTIMATORS["average_precision"].under("published")]) is TieTable.merged_negative_runs
    assert reduction_for(records("average_precision", "lower_trapezoid")) is TieTable.collapsed
    t = _heavy_ties_two_segments()
    assert reduction_for(records("binormal"))(t) is t


def test_collapsed_bootstrap_of_lower_trapezoid_matches_row_resampling():
    lower_trapezoid = PR_ESTIMATORS["lower_trapezoid"]
    rng = np.random.default_rng(13)
    y, s = random_scores(rng, 150, prevalence=0.2)
    n_rep = 1500

    def stat(yy, ss):
        return float(lower_trapezoid(_table(yy, ss))[0])

    rows = _row_bootstrap(y, s, stat, n_rep, np.random.default_rng(6))
    collapsed = _table(y, s).collapsed()
    counts = boot.bootstrap_estimates(collapsed, lower_trapezoid, n_boot=n_rep, seed=7)[0]
    _same_distribution(counts, rows)


def test_replicate_kernel_of_average_precision_equals_the_estimator():
    for t in _random_tables(81):
        table = boot.stratified_counts(t, 7, seed=1, chunk_size=3)
        fast = average_precision_replicates(table)
        np.testing.assert_allclose(fast, average_precision(table), atol=1e-12)
