"""The interaction test's paired jackknife of a difference (issue 16).

Oracles: the two-sample jackknife computed here by brute force (delete one
row of the data, re-estimate both scores with the public ``aucpr``, take the
difference), statsmodels' ``combine_effects`` for Cochran's Q and scipy's F
distribution for the pooled test.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from scipy.stats import f as f_distribution
from statsmodels.stats.meta_analysis import combine_effects

from aucpr_stats import DEFAULT_PR_ESTIMATOR, aucpr, compare
from aucpr_stats.exceptions import InputError


def _data(n=150, seed=5, rounding=1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    a = np.round(rng.normal(size=n) + y, rounding)  # ties within and across classes
    b = np.round(rng.normal(size=n) + 0.5 * y + 0.3 * a, rounding)
    return pl.DataFrame({"y": y, "a": a, "b": b, "g": rng.choice(["x", "y", "z"], n)})


def _brute_jackknife(part: pl.DataFrame, estimator: str, prevalence=None) -> float:
    """Delete each row, re-estimate both scores, spread of the differences within each class."""
    values = {True: [], False: []}
    for i in range(part.height):
        rest = pl.concat([part[:i], part[i + 1:]])
        one = [aucpr(rest, "y", s, estimator=estimator, prevalence=prevalence).estimate for s in ("a", "b")]
        values[bool(part["y"][i])].append(one[0] - one[1])
    total = 0.0
    for d in values.values():
        d = np.asarray(d)
        total += (d.size - 1) / d.size * np.sum((d - d.mean()) ** 2)
    return total


@pytest.mark.parametrize("estimator,prevalence,rounding", [
    ("average_precision", None, 1), ("interpolated_median", None, 1), ("average_precision", 0.05, 1),
    ("interpolated_median", None, 0),  # coarse scores: many rows share a cell under both scores
])
def test_paired_jackknife_matches_brute_force(estimator, prevalence, rounding):
    df = _data(rounding=rounding)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(df, "y", ["a", "b"], by="g", metric="aucpr", estimator=estimator,
                             prevalence=prevalence, n_boot=20, seed=1)
        test = comparison.interaction(pooled=False)
    groups = test.groups
    assert test.method == "jackknife" and test.reference == "welch"
    for level in ("x", "y", "z"):
        expected = _brute_jackknife(df.filter(pl.col("g") == level), estimator, prevalence)
        found = groups.filter(pl.col("g") == level)["variance"][0]
        assert found == pytest.approx(expected, rel=1e-8, abs=1e-15)  # a spread of near-equal values


def test_pooled_jackknife_interaction_is_the_anova_f_test():
    df = _data(n=240, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(df, "y", ["a", "b"], by="g", metric="aucpr", n_boot=20, seed=1)
        test = comparison.interaction()
    table = comparison.to_polars()
    assert test.method == "jackknife" and test.reference == "pooled"
    # the oracle: each group's brute-force variance, pooled per positive with weights n_pos - 1
    raw = np.array([_brute_jackknife(df.filter(pl.col("g") == g), DEFAULT_PR_ESTIMATOR) for g in table["g"]])
    n_pos = table["n_pos"].to_numpy().astype(float)
    nu = n_pos - 1
    pooled = np.sum(nu * n_pos * raw) / nu.sum() / n_pos
    oracle = combine_effects(table["difference"].to_numpy(), pooled)
    q = oracle.test_homogeneity().statistic
    k = table.height
    assert test.statistic == pytest.approx(q / (k - 1), rel=1e-9)
    assert test.p_value == pytest.approx(f_distribution.sf(q / (k - 1), k - 1, nu.sum()), rel=1e-8)
    assert test.to_polars()["df2"][0] == pytest.approx(nu.sum())


def _brute_one(part: pl.DataFrame, score: str) -> float:
    """The two-sample jackknife variance of one score's default estimate, by deleting each row."""
    values = {True: [], False: []}
    for i in range(part.height):
        rest = pl.concat([part[:i], part[i + 1:]])
        values[bool(part["y"][i])].append(aucpr(rest, "y", score).estimate)
    return sum((len(v) - 1) / len(v) * np.sum((np.asarray(v) - np.mean(v)) ** 2) for v in values.values())


def test_unpaired_interaction_adds_the_levels_jackknife_variances():
    df = _data(n=360, seed=12).with_columns(site=pl.Series(np.random.default_rng(1).choice(["p", "q"], 360)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(df, "y", "a", between="site", by="g", metric="aucpr", n_boot=20, seed=1)
        welch = comparison.interaction(pooled=False)
        pooled = comparison.interaction()
    table = comparison.to_polars()
    raw, n_pool, nu = [], [], []
    for level in table["g"]:
        parts = [df.filter((pl.col("g") == level) & (pl.col("site") == s)) for s in ("p", "q")]
        raw.append(sum(_brute_one(part, "a") for part in parts))
        n_a, n_b = (int(part["y"].sum()) for part in parts)
        n_pool.append(1.0 / (1.0 / n_a + 1.0 / n_b))
        nu.append(n_a + n_b - 2.0)
    assert welch.groups["variance"].to_numpy() == pytest.approx(np.array(raw), rel=1e-8)
    # the pooled test: one variance per positive r, each difference's variance r (1/n_a + 1/n_b)
    raw, n_pool, nu = np.array(raw), np.array(n_pool), np.array(nu)
    r = np.sum(nu * n_pool * raw) / nu.sum()
    q = combine_effects(table["difference"].to_numpy(), r / n_pool).test_homogeneity().statistic
    k = table.height
    assert pooled.statistic == pytest.approx(q / (k - 1), rel=1e-9)
    assert pooled.p_value == pytest.approx(f_distribution.sf(q / (k - 1), k - 1, nu.sum()), rel=1e-8)


def test_random_groups_are_reproducible_and_ignore_row_order():
    df = _data(n=600, seed=11, rounding=3)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=4)

    def variances(frame, **options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            comparison = compare(frame, "y", ["a", "b"], by="g", metric="aucpr", n_boot=20, seed=1)
            return comparison.interaction(pooled=False, **{"max_units": 10, **options}).groups.sort("g")["variance"]

    first = variances(df, seed=3)
    assert first.to_list() == variances(df, seed=3).to_list()
    assert first.to_list() == variances(shuffled, seed=3).to_list()
    assert first.to_list() != variances(df, seed=4).to_list()
    # delete-a-group with 10 groups per class is a coarser jackknife, of the same size
    exact = variances(df, max_units=10_000)
    assert np.all(np.abs(np.log(first.to_numpy() / exact.to_numpy())) < np.log(3))


def test_interaction_methods_by_design():
    df = _data(n=300).with_columns(patient=pl.int_range(pl.len()) // 2, w=pl.lit(1.5), h=pl.col("b") > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roc = compare(df, "y", ["a", "b"], by="g", metric="auroc")
        assert roc.interaction().method == "delong"
        assert roc.interaction("jackknife").method == "jackknife"
        clustered = compare(df, "y", ["a", "b"], by="g", metric="aucpr", cluster="patient", n_boot=20, seed=1)
        assert clustered.interaction().method == "bootstrap"
        with pytest.raises(InputError, match="method"):
            clustered.interaction("jackknife")
        weighted = compare(df, "y", ["a", "b"], by="g", metric="aucpr", weights="w", n_boot=20, seed=1)
        assert weighted.interaction().method == "bootstrap"
        unpaired = compare(df, "y", "a", between="g", by="h", metric="aucpr", n_boot=20, seed=1)
        assert unpaired.interaction().method == "jackknife"
        unpaired_clustered = compare(df, "y", "a", between="g", by="h", metric="aucpr", cluster="patient",
                                     n_boot=20, seed=1)
        with pytest.raises(InputError, match="method"):
            unpaired_clustered.interaction("jackknife")
        paired = compare(df, "y", ["a", "b"], by="g", metric="aucpr", n_boot=20, seed=1)
        with pytest.raises(InputError, match="jackknife"):
            paired.interaction("bootstrap", pooled=True)
        with pytest.raises(InputError, match="max_units"):
            paired.interaction(max_units=1)
