"""Correctness of the faster default roads (issue "Speed"), never timings.

* the replicate kernels of A' and average precision against the estimators
  themselves, bit for bit, on chunks of replicates of one group (zero rows,
  ties across the classes, empty classes);
* a tie-aware record runs as its published twin exactly where no row holds
  both classes, with the same values, also through the bootstrap;
* the sorted classes of one group find a tie across the classes as the
  merged table does;
* the counting of a chunk's draws may happen on any thread: the same
  replicates whatever the number of threads;
* the probability functions loaded on first use agree with scipy.stats;
* ``import aucpr_stats`` and ``aucpr-stats --help`` load no heavy module
  (scipy, statsmodels, pandas, matplotlib, DuckDB, Spark);
* the per-thread work arrays are reused, per thread.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc, distributions
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.estimators.registry import READS
from aucpr_stats.estimators.average_precision import average_precision, average_precision_replicates
from aucpr_stats.estimators.roc import a_prime, a_prime_replicates
from aucpr_stats.resample import Streams
from aucpr_stats.resample.counts import bootstrap_estimates
from aucpr_stats.scratch import work_array
from aucpr_stats.tables import Tuning, deferred_tie_table, sort_classes
from aucpr_stats.ties import TieTable

ROOT = Path(__file__).resolve().parents[1]


@st.composite
def replicate_chunks(draw):
    """A chunk of ``R`` replicates of one group of ``W`` rows: integer counts, zeros anywhere."""
    n_rep = draw(st.integers(1, 12))
    width = draw(st.integers(1, 9))
    counts = st.lists(st.integers(0, 4), min_size=n_rep * width, max_size=n_rep * width)
    pos, neg = np.array(draw(counts)), np.array(draw(counts))
    score = np.tile(np.arange(width, 0, -1.0), n_rep)
    return TieTable(score, pos, neg, np.arange(n_rep + 1) * width)


def each_segment(kernel, table: TieTable, **options) -> np.ndarray:
    """The kernel on every segment alone: the oracle a chunk kernel must match bit for bit."""
    return np.concatenate([np.atleast_1d(kernel(table.segment(k), **options)) for k in range(table.n_segments)])


@settings(max_examples=300, deadline=None)
@given(replicate_chunks())
def test_a_prime_replicate_kernel_is_a_prime_bit_for_bit(table):
    with np.errstate(all="ignore"):
        assert np.array_equal(a_prime_replicates(table), each_segment(a_prime, table), equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(replicate_chunks(), st.sampled_from(["interpolate", "published"]))
def test_average_precision_replicate_kernel_is_the_estimator_bit_for_bit(table, ties):
    # the oracle: the kernel's general road (any segment lengths, weighted counts), given the same counts as floats
    as_weights = TieTable(table.score, table.pos.astype(float), table.neg.astype(float), table.offsets)
    with np.errstate(all="ignore"):
        expected = average_precision_replicates(as_weights, ties)
        assert np.array_equal(average_precision_replicates(table, ties), expected, equal_nan=True)
        np.testing.assert_allclose(expected, each_segment(average_precision, table, tie_blocks=ties), rtol=1e-14)


def test_replicate_kernels_on_weighted_counts_take_the_general_road():
    table = TieTable(np.tile([2.0, 1.0], 2), [0.5, 1.5, 1.0, 0.0], [1.0, 0.25, 0.0, 2.0], [0, 2, 4])
    assert np.array_equal(a_prime_replicates(table), a_prime(table))
    np.testing.assert_allclose(average_precision_replicates(table), each_segment(average_precision, table),
                               rtol=1e-14)


def no_cross_ties_frame(n: int = 400, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({"y": y, "s": rng.normal(size=n) + y})


def test_a_tie_aware_record_runs_as_its_published_twin_exactly_without_cross_ties():
    clean = TieTable([3.0, 2.0, 1.0], [1, 0, 1], [0, 2, 0], [0, 3])
    crossed = TieTable([3.0, 2.0, 1.0], [1, 1, 1], [0, 2, 1], [0, 3])
    switched = []
    for record in PR_ESTIMATORS.values():
        twin = record.published
        if twin is None or READS.index(twin.reads) >= READS.index(record.reads):  # no smaller table to read
            assert record.for_table(clean) is record
            continue
        switched.append(record.name)
        assert record.for_table(clean) is twin
        assert record.for_table(crossed) is record
        assert twin.for_table(crossed) is twin
        assert np.array_equal(record(record.view(clean)), twin(twin.view(clean)))
    assert "average_precision" in switched


def test_every_tie_aware_estimator_equals_its_published_twin_without_cross_ties():
    rng = np.random.default_rng(12)
    for _ in range(200):
        width = int(rng.integers(2, 25))
        positive = rng.random(width) < 0.4
        positive[0], positive[-1] = True, False
        counts = rng.integers(1, 4, width)
        table = TieTable(np.sort(rng.random(width))[::-1], np.where(positive, counts, 0),
                         np.where(positive, 0, counts), [0, width])
        for record in PR_ESTIMATORS.values():
            if record.published is not None:
                with np.errstate(all="ignore"):
                    assert np.array_equal(record(table), record.published(table), equal_nan=True), record.name


def test_bootstrap_of_the_tie_aware_default_is_the_published_one_without_cross_ties():
    data = no_cross_ties_frame()
    default = aucpr(data, "y", "s").conf_int(method="bootstrap", n_boot=300, rng=4)
    published = aucpr(data, "y", "s", ties="published").conf_int(method="bootstrap", n_boot=300, rng=4)
    for column in ("estimate", "lower", "upper", "se", "boot_mean", "boot_median"):
        assert np.array_equal(default[column].to_numpy(), published[column].to_numpy())


def test_bootstrap_with_cross_ties_keeps_the_tie_aware_convention():
    rng = np.random.default_rng(1)
    y = rng.random(400) < 0.4
    data = pl.DataFrame({"y": y, "s": np.round(rng.normal(size=400) + y, 0)})  # few values: ties across classes
    default = aucpr(data, "y", "s").conf_int(method="bootstrap", n_boot=300, rng=4)
    published = aucpr(data, "y", "s", ties="published").conf_int(method="bootstrap", n_boot=300, rng=4)
    assert default["estimate"][0] != published["estimate"][0]
    assert default["lower"][0] != published["lower"][0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-4, 4)), min_size=2, max_size=40))
def test_sorted_classes_find_a_tie_across_the_classes_as_the_merged_table(rows):
    positive = np.array([r[0] for r in rows])
    score = np.array([float(r[1]) for r in rows])
    if positive.all() or not positive.any():
        return
    classes = sort_classes([[score[positive]]], [[score[~positive]]])
    merged = classes.full_table()
    assert classes.ties_across_classes() == merged.ties_across_classes()
    assert TieTable.deferred(classes).ties_across_classes() == bool(set(score[positive]) & set(score[~positive]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(-3, 3)), min_size=2, max_size=60))
def test_grouped_sorted_classes_find_a_tie_across_the_classes_as_the_merged_table(rows):
    group = np.array([r[0] for r in rows], dtype=np.int64)
    positive = np.array([r[1] for r in rows])
    score = np.array([r[2] * 0.5 for r in rows])
    deferred = deferred_tie_table(group, score, positive, 4, Tuning(bucket_min_rows=0))
    assert deferred.is_deferred
    merged = deferred.source.full_table()
    expected = bool(np.any((merged.pos > 0) & (merged.neg > 0)))
    assert deferred.ties_across_classes() == expected
    assert deferred.is_deferred  # answered from the sorted classes, without merging them


def test_chunks_counted_on_worker_threads_give_the_same_replicates():
    rng = np.random.default_rng(3)
    pos, neg = rng.integers(0, 3, 60), rng.integers(0, 3, 60)
    pos[0] = neg[-1] = 1
    table = TieTable(np.arange(60, 0, -1.0), pos, neg, [0, 60])
    runs = [bootstrap_estimates(table, [a_prime, average_precision], n_boot=700, streams=Streams.for_segments(9, 1, "test"),
                                chunk_size=64, threads=threads) for threads in (1, 2, 3)]
    for other in runs[1:]:
        assert np.array_equal(runs[0], other)


@pytest.mark.parametrize("metric", ["aucpr", "auroc"])
def test_default_bootstrap_same_whatever_the_threads(metric, monkeypatch):
    data = no_cross_ties_frame(seed=5)
    fn = aucpr if metric == "aucpr" else auroc
    frames = []
    for threads in ("1", "2"):
        monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
        frames.append(fn(data, "y", "s").conf_int(method="bootstrap", n_boot=500, rng=8))
    assert frames[0].equals(frames[1])


def test_probability_functions_agree_with_scipy_stats():
    from scipy import special, stats

    x = np.array([-1.0, 0.0, 0.3, 2.0, 7.5, 40.0, np.inf, np.nan])
    for df in (1.0, 2.5, 9.0):
        np.testing.assert_array_equal(distributions.chi2_sf(x, df), stats.chi2.sf(x, df))
        np.testing.assert_array_equal(distributions.f_sf(x, df, 12.0), stats.f.sf(x, df, 12.0))
        p = np.array([0.025, 0.5, 0.975])
        np.testing.assert_array_equal(distributions.t_quantile(p, df), stats.t.ppf(p, df))
    np.testing.assert_array_equal(distributions.normal_quantile([0.025, 0.975]), special.ndtri([0.025, 0.975]))
    np.testing.assert_array_equal(distributions.poisson_cdf(np.arange(5), 2.0), stats.poisson.cdf(np.arange(5), 2.0))


def loaded_modules(code: str) -> list[str]:
    probe = ("import sys\n" + code + "\nprint(sorted(m for m in ('scipy', 'statsmodels', 'pandas', 'matplotlib', "
             "'duckdb', 'pyspark') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return eval(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_module():
    assert loaded_modules("import aucpr_stats") == []


def test_command_line_help_loads_no_heavy_module():
    code = ("from aucpr_stats import cli\n"
            "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "try:\n    cli.main(['plan', '--help'])\nexcept SystemExit:\n    pass")
    assert loaded_modules(code) == []


def test_names_loaded_on_first_use_are_the_modules_objects():
    import aucpr_stats
    from aucpr_stats import planning, simulate

    assert aucpr_stats.coverage_study is simulate.coverage_study
    assert aucpr_stats.sample_size is planning.sample_size
    assert aucpr_stats.simulate is simulate
    assert {"simulate", "power", "SCENARIOS"} <= set(dir(aucpr_stats))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        aucpr_stats.nope  # noqa: B018


def test_work_arrays_are_reused_and_per_thread():
    a = work_array("test:reuse", (3, 4), np.int64)
    b = work_array("test:reuse", (2, 5), np.int64)
    assert b.shape == (2, 5) and np.shares_memory(a, b)
    assert not np.shares_memory(work_array("test:reuse", (3, 4), np.float64), a)
    other = {}
    thread = threading.Thread(target=lambda: other.setdefault("a", work_array("test:reuse", (3, 4), np.int64)))
    thread.start()
    thread.join()
    assert not np.shares_memory(other["a"], work_array("test:reuse", (3, 4), np.int64))


def test_heterogeneity_p_values_unchanged_by_the_lazy_functions():
    from scipy import stats

    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(4), 300)
    y = rng.random(g.size) < 0.3
    data = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y * (1 + 0.3 * g)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = aucpr(data, "y", "s", by="g").heterogeneity().to_polars()
    statistic, df, df2 = test["statistic"][0], test["df"][0], test["df2"][0]  # the jackknife F test, the default
    assert test["p_value"][0] == pytest.approx(stats.f.sf(statistic, df, df2), rel=1e-12)


def test_roc_band_same_whatever_the_threads(monkeypatch):
    from aucpr_stats import roc_curve

    data = no_cross_ties_frame(n=3000, seed=6)
    frames = []
    for threads in ("1", "2"):
        monkeypatch.setenv("AUCPR_STATS_THREADS", threads)
        curve = roc_curve(data, "y", "s")
        frames.append((curve.band(n_boot=300, rng=2).to_polars(),
                       curve.intervals(specificity=[0.5, 0.9], n_boot=300, rng=2).to_polars()))
    assert frames[0][0].equals(frames[1][0])
    assert frames[0][1].equals(frames[1][1])


@settings(max_examples=300, deadline=None)
@given(replicate_chunks(), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6))
def test_roc_curve_read_on_replicate_chunks_as_on_the_compacted_table(table, fpr):
    from aucpr_stats.curves.points import roc_interpolated

    grid = np.array(fpr + [0.0, 1.0])
    # the oracle: the general road (zero-count rows dropped), taken by float counts of the same values
    as_weights = TieTable(table.score, table.pos.astype(float), table.neg.astype(float), table.offsets)
    with np.errstate(all="ignore"):
        assert np.array_equal(roc_interpolated(table, grid), roc_interpolated(as_weights, grid), equal_nan=True)
