"""Per-group random streams: a group's draws depend on the seed and its own key, nothing else.

Each test computes a seeded result on some groups, then changes what should
not matter (other groups renamed, removed or reordered; the row order; the
frame type; an int or a Generator for the seed) and asserts the group's
numbers are bit for bit the same; and changes what should matter (the seed,
the group's own key) and asserts they differ.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc, compare, pr_curve
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.resample import Streams, key_words, root_sequence, stratified_counts
from aucpr_stats.ties import TieTable
from tests.conftest import as_polars, random_scores


def cohort(seed: int = 1, n: int = 900) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.3, ties=False)
    return pl.DataFrame({"y": y, "s": s, "s2": np.round(s + rng.normal(size=n), 1),
                         "site": rng.choice(["north", "south", "west"], n)})


def rows_of(frame, site: str) -> pl.DataFrame:
    frame = as_polars(frame)
    return frame.filter(pl.col("site") == site).drop("site")


def variants(df: pl.DataFrame):
    """The same north group beside other groups changed in every way that must not matter."""
    yield "renamed", df.with_columns(pl.col("site").replace({"south": "a_first", "west": "zz"}))
    yield "removed", df.filter(pl.col("site") != "south")
    yield "shuffled", df.sample(fraction=1.0, shuffle=True, seed=3)
    yield "alone", df.filter(pl.col("site") == "north")


INTERVAL_CALLS = {
    "aucpr bootstrap": lambda d, seed: aucpr(d, "y", "s", by="site", estimator="average_precision").conf_int(
        method="bootstrap", n_boot=200, seed=seed),
    "aucpr cross_validation": lambda d, seed: aucpr(d, "y", "s", by="site").conf_int(
        method="cross_validation", folds=5, seed=seed),
    "auroc bootstrap": lambda d, seed: auroc(d, "y", "s", by="site").conf_int(method="bootstrap", n_boot=200,
                                                                              seed=seed),
    "paired comparison": lambda d, seed: compare(d, "y", ["s", "s2"], by="site", metric="aucpr", n_boot=200,
                                                 seed=seed).to_frame(),
}


@pytest.mark.parametrize("call", list(INTERVAL_CALLS))
def test_a_groups_draws_do_not_depend_on_the_other_groups(call):
    df = cohort()
    run = INTERVAL_CALLS[call]
    reference = rows_of(run(df, 7), "north")
    for what, other in variants(df):
        again = rows_of(run(other, 7), "north")
        assert again.equals(reference), what
    assert not rows_of(run(df, 8), "north").equals(reference)  # the seed matters


def test_the_groups_own_key_matters_and_the_frame_type_does_not():
    df = cohort()
    run = INTERVAL_CALLS["aucpr bootstrap"]
    reference = rows_of(run(df, 7), "north")
    pandas = rows_of(run(df.to_pandas(), 7), "north")
    assert pandas.equals(reference)
    lazy = rows_of(run(df.lazy(), 7), "north")
    assert lazy.equals(reference)
    renamed = as_polars(run(df.with_columns(pl.col("site").replace({"north": "nord"})), 7))
    assert not renamed.filter(pl.col("site") == "nord").drop("site").equals(reference)


def test_int_generator_and_seed_sequence_seeds():
    result = aucpr(cohort(), "y", "s", by="site")
    a = result.conf_int(method="bootstrap", n_boot=100, seed=5)
    assert a.equals(result.conf_int(method="bootstrap", n_boot=100, seed=np.random.default_rng(5)))
    sequence = np.random.SeedSequence(12)
    b = result.conf_int(method="bootstrap", n_boot=100, seed=sequence)
    assert b.equals(result.conf_int(method="bootstrap", n_boot=100, seed=np.random.SeedSequence(12)))
    # a Generator is advanced: the next call draws anew
    rng = np.random.default_rng(5)
    first = result.conf_int(method="bootstrap", n_boot=100, seed=rng)
    assert not first.equals(result.conf_int(method="bootstrap", n_boot=100, seed=rng))


def test_methods_of_one_call_do_not_depend_on_each_other():
    result = aucpr(cohort(), "y", "s", by="site")
    both = result.conf_int(method=["bootstrap", "cross_validation"], n_boot=100, folds=5, seed=3)
    boot = result.conf_int(method="bootstrap", n_boot=100, seed=3)
    cv = result.conf_int(method="cross_validation", folds=5, seed=3)
    columns = ["site", "lower", "upper", "se"]
    assert both.filter(pl.col("method") == "bootstrap").select(columns).equals(boot.select(columns))
    assert both.filter(pl.col("method") == "cross_validation").select(columns).equals(cv.select(columns))


def test_band_of_a_group_does_not_depend_on_the_other_groups():
    df = cohort(n=1500)
    reference = pr_curve(df, "y", "s", by="site").band(n_boot=200, seed=4, grid=21)
    alone = pr_curve(df.filter(pl.col("site") == "north"), "y", "s", by="site").band(n_boot=200, seed=4, grid=21)
    np.testing.assert_array_equal(reference.lower[0], alone.lower[0])
    np.testing.assert_array_equal(reference.upper[0], alone.upper[0])


def test_unpaired_comparison_levels_draw_from_their_own_streams():
    df = cohort()
    full = as_polars(compare(df, "y", ["s"], between="site", metric="aucpr", n_boot=200, seed=9,
                             reference="north").to_frame())
    fewer = as_polars(compare(df.filter(pl.col("site") != "west"), "y", ["s"], between="site", metric="aucpr",
                              n_boot=200, seed=9, reference="north").to_frame())
    row = full.filter(pl.col("site_a") == "south").drop("site_a", "site_b")
    assert row.equals(fewer.filter(pl.col("site_a") == "south").drop("site_a", "site_b"))


# ------------------------------------------------------------------ the streams
def test_key_words_read_values_not_types():
    a = pl.DataFrame({"g": pl.Series([1, 2], dtype=pl.Int32), "h": ["x", None]})
    b = pl.DataFrame({"g": pl.Series([1, 2], dtype=pl.Int64), "h": ["x", None]})
    c = pl.from_pandas(pd.DataFrame({"g": [1.0, 2.0], "h": ["x", None]}))
    assert key_words(a, ["g", "h"]) == key_words(b, ["g", "h"]) == key_words(c, ["g", "h"])
    assert len(set(key_words(a, ["g", "h"]))) == 2
    # the column names are part of the key
    assert key_words(a.rename({"g": "k"}), ["k", "h"]) != key_words(a, ["g", "h"])


def test_streams_are_independent_per_purpose_and_segment():
    root = root_sequence(1)
    words = [10, 11]
    boot, folds = Streams(root, "bootstrap", words), Streams(root, "cross_validation", words)
    draws = {(p, k): s[k].random(4).tolist() for p, s in (("b", boot), ("f", folds)) for k in (0, 1)}
    assert len({tuple(v) for v in draws.values()}) == 4
    again = Streams(root_sequence(1), "bootstrap", words)
    assert again[1].random(4).tolist() == draws[("b", 1)]


def test_replicates_of_a_segment_do_not_depend_on_the_other_segments_or_chunks():
    rng = np.random.default_rng(2)
    a = TieTable(np.arange(50, 0, -1.0), rng.integers(0, 3, 50), rng.integers(0, 5, 50), [0, 50])
    b = TieTable(np.arange(9, 0, -1.0), [3] * 9, [40] * 9, [0, 9])
    both = TieTable(np.concatenate([a.score, b.score]), np.concatenate([a.pos, b.pos]),
                    np.concatenate([a.neg, b.neg]), [0, 50, 59])
    streams = Streams(root_sequence(4), "bootstrap", [101, 202])
    together = stratified_counts(both, 30, streams=streams)
    alone = stratified_counts(b, 30, streams=Streams(root_sequence(4), "bootstrap", [202]))
    second = np.repeat(np.arange(30) * 2 + 1, 1)
    np.testing.assert_array_equal(together.take(second).pos, alone.pos)
    np.testing.assert_array_equal(together.take(second).neg, alone.neg)


@pytest.mark.parametrize("call", [
    lambda r, seed: r.conf_int(method="bootstrap", seed=seed),
    lambda r, seed: compare(cohort(), "y", ["s", "s2"], method="bootstrap", seed=seed),
    lambda r, seed: pr_curve(cohort(), "y", "s").band(seed=seed),
])
def test_bad_seeds_get_the_same_error_everywhere(call):
    result = aucpr(cohort(), "y", "s")
    with pytest.raises(InputTypeError, match="`seed` must be None, an integer >= 0, a numpy Generator or a numpy "
                                            "SeedSequence; got 'a'"):
        call(result, "a")
    with pytest.raises(InputError, match=r"`seed` must be an integer >= 0; got -1"):
        call(result, -1)


def test_a_groups_estimates_are_the_same_bits_without_the_other_groups():
    df = cohort(seed=4, n=1200).with_columns(pl.col("s").round(1).alias("tied"))
    for score in ("s", "tied"):
        every = as_polars(aucpr(df, "y", score, by="site", estimator="all").to_frame())
        alone = as_polars(aucpr(df.filter(pl.col("site") == "west"), "y", score, by="site",
                                estimator="all").to_frame())
        assert every.filter(pl.col("site") == "west").equals(alone)
        roc_every = as_polars(auroc(df, "y", score, by="site").conf_int(method="all", n_boot=50, seed=1))
        roc_alone = as_polars(auroc(df.filter(pl.col("site") == "west"), "y", score, by="site").conf_int(
            method="all", n_boot=50, seed=1))
        assert roc_every.filter(pl.col("site") == "west").equals(roc_alone)


@pytest.mark.parametrize("call", list(INTERVAL_CALLS))
def test_every_resampling_call_is_the_same_from_pandas_polars_and_a_lazyframe(call):
    df = cohort()
    run = INTERVAL_CALLS[call]
    reference = rows_of(run(df, 11), "north")
    for other in (df.to_pandas(), df.lazy(), df.sample(fraction=1.0, shuffle=True, seed=5).lazy()):
        assert rows_of(run(other, 11), "north").equals(reference), type(other).__name__


def test_a_band_is_the_same_from_pandas_polars_and_a_lazyframe():
    df = cohort(n=1200)
    reference = pr_curve(df, "y", "s", by="site").band(n_boot=100, seed=2, grid=11)
    for other in (df.to_pandas(), df.lazy()):
        band = pr_curve(other, "y", "s", by="site").band(n_boot=100, seed=2, grid=11)
        np.testing.assert_array_equal(band.lower, reference.lower)
        np.testing.assert_array_equal(band.upper, reference.upper)
