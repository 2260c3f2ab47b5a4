"""The jackknife variance behind the AUCPR heterogeneity test, and Welch's F reference.

Oracles: the jackknife by brute force over observations (delete each row of
the data, re-estimate with scikit-learn's average precision, or with the
library's estimator on a data frame without that row); statsmodels'
``anova_oneway(use_var="unequal")`` (Welch's 1951 test) for the reference
distribution.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logit
from scipy.stats import f as f_distribution
from sklearn.metrics import average_precision_score
from statsmodels.stats.oneway import anova_oneway

from aucpr_stats import DEFAULT_PR_ESTIMATOR, aucpr, auroc
from aucpr_stats.compare.jackknife import jackknife_variance, welch_test
from aucpr_stats.estimators.registry import records
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError
from aucpr_stats.resample import Streams
from aucpr_stats.ties import TieTable

AP_PUBLISHED = records("aucpr", ["average_precision"], "published")  # scikit-learn's definition, ties included


def _table(groups: list[tuple[np.ndarray, np.ndarray]]) -> TieTable:
    """A tie table from (y, score) per group, written here from the definition (descending distinct scores)."""
    score, pos, neg, offsets = [], [], [], [0]
    for y, s in groups:
        values = np.unique(s)[::-1]
        score.append(values)
        pos.append(np.array([np.sum(y[s == v]) for v in values]))
        neg.append(np.array([np.sum(~y[s == v]) for v in values]))
        offsets.append(offsets[-1] + values.size)
    return TieTable(np.concatenate(score), np.concatenate(pos), np.concatenate(neg), offsets)


def _brute_jackknife(y: np.ndarray, s: np.ndarray, estimate) -> tuple[float, float]:
    """Delete each observation in turn: the two-sample jackknife variance, natural and logit scale."""
    out = []
    for f in (lambda x: x, logit):
        total = 0.0
        for cls in (True, False):
            idx = np.flatnonzero(y == cls)
            with np.errstate(all="ignore"):  # a leave-one-out estimate of 1 has no logit
                values = np.array([f(estimate(np.delete(y, i), np.delete(s, i))) for i in idx])
                n = idx.size
                total += (n - 1) / n * np.sum((values - values.mean()) ** 2)
        out.append(total)
    return out[0], out[1]


def _sample(rng, n_pos, n_neg, ties=False):
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    s = rng.normal(size=y.size) + y
    return y, (np.round(s * 2) / 2 if ties else s)


def test_exact_jackknife_matches_brute_force_with_sklearn():
    rng = np.random.default_rng(11)
    groups = [_sample(rng, 7, 15, ties=True), _sample(rng, 12, 9), _sample(rng, 5, 30, ties=True)]
    out = jackknife_variance(_table(groups), AP_PUBLISHED)
    for g, (y, s) in enumerate(groups):
        natural, on_logit = _brute_jackknife(y, s, average_precision_score)
        assert out["natural"][g, 0] == pytest.approx(natural, rel=1e-10)
        assert out["logit"][g, 0] == pytest.approx(on_logit, rel=1e-10)
        assert out["units"][g] == y.sum()


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 6), st.integers(1, 8), st.integers(0, 2**32 - 1), st.booleans())
def test_exact_jackknife_matches_brute_force_property(n_pos, n_neg, seed, ties):
    rng = np.random.default_rng(seed)
    y, s = _sample(rng, n_pos, n_neg, ties)
    out = jackknife_variance(_table([(y, s)]), AP_PUBLISHED)
    natural, _ = _brute_jackknife(y, s, average_precision_score)
    assert out["natural"][0, 0] == pytest.approx(natural, rel=1e-9, abs=1e-15)
    assert out["natural"][0, 0] >= 0


def test_default_estimator_jackknife_matches_deleting_rows_of_the_data():
    # the library's default estimator (ties interpolated) on the data without each row
    rng = np.random.default_rng(5)
    y, s = _sample(rng, 6, 10, ties=True)

    def estimate(yy, ss):
        return aucpr(pl.DataFrame({"y": yy, "s": ss}), "y", "s").estimates[0, 0]

    natural, on_logit = _brute_jackknife(y, s, estimate)
    rec = records("aucpr", [DEFAULT_PR_ESTIMATOR], "interpolate")
    out = jackknife_variance(_table([(y, s)]), rec)
    assert out["natural"][0, 0] == pytest.approx(natural, rel=1e-10)
    assert out["logit"][0, 0] == pytest.approx(on_logit, rel=1e-10)


def test_grouped_jackknife_reproducible_per_group_and_close_to_exact():
    rng = np.random.default_rng(2)
    groups = [_sample(rng, 150, 600), _sample(rng, 120, 500)]
    ties = _table(groups)
    rec = records("aucpr", ["interpolated_median"], "interpolate")
    exact = jackknife_variance(ties, rec, max_units=10**6)
    grouped = jackknife_variance(ties, rec, max_units=60, streams=Streams.for_segments(1, 2, "jackknife"))
    again = jackknife_variance(ties, rec, max_units=60, streams=Streams.for_segments(1, 2, "jackknife"))
    other = jackknife_variance(ties, rec, max_units=60, streams=Streams.for_segments(2, 2, "jackknife"))
    np.testing.assert_array_equal(grouped["natural"], again["natural"])
    assert not np.array_equal(grouped["natural"], other["natural"])
    assert list(grouped["units"]) == [60, 60] and list(exact["units"]) == [150, 120]
    # a delete-a-group jackknife with 60 groups: within about 2 x sqrt(2 / 59) of the exact value
    np.testing.assert_allclose(grouped["natural"], exact["natural"], rtol=0.4)
    # a group's value does not depend on the other group (its own stream, its own rows)
    alone = jackknife_variance(ties.take([1]), rec, max_units=60,
                               streams=Streams.for_segments(1, 2, "jackknife").take([1]))
    assert alone["natural"][0, 0] == grouped["natural"][1, 0]


def test_welch_test_matches_statsmodels_anova_oneway():
    rng = np.random.default_rng(8)
    samples = [rng.normal(size=n) * sd + mu for n, sd, mu in ((12, 1.0, 0.0), (25, 2.0, 0.5), (40, 0.5, 0.2),
                                                               (8, 1.5, 0.9))]
    means = np.array([x.mean() for x in samples])
    variances = np.array([x.var(ddof=1) / x.size for x in samples])
    nu = np.array([x.size - 1.0 for x in samples])
    out = welch_test(means, variances, nu, np.zeros(4, dtype=int), 1)
    oracle = anova_oneway(samples, use_var="unequal")
    assert out["statistic"][0] == pytest.approx(oracle.statistic, rel=1e-10)
    assert out["df2"][0] == pytest.approx(oracle.df[1], rel=1e-10) and out["df"][0] == 3
    assert out["p_value"][0] == pytest.approx(oracle.pvalue, rel=1e-8)


def test_aucpr_default_is_the_pooled_jackknife_and_welch_on_request():
    rng = np.random.default_rng(4)
    frames = [pl.DataFrame({"y": y, "s": s, "g": [g] * y.size})
              for g, (y, s) in zip("abc", [_sample(rng, 60, 140), _sample(rng, 55, 200), _sample(rng, 70, 90)])]
    df = pl.concat(frames)
    result = aucpr(df, "y", "s", by="g", estimator="average_precision")
    test = result.heterogeneity(pooled=False)
    assert test.method == "jackknife" and test.scale == "logit"
    # the oracle: brute-force jackknife on the logit scale, Welch's F by its formula
    theta = result.estimates[:, 0]
    v = np.array([_brute_jackknife(f["y"].to_numpy(), f["s"].to_numpy(), average_precision_score)[1]
                  for f in frames])
    nu = np.array([f["y"].sum() - 1.0 for f in frames])
    w = 1 / v
    t = logit(theta)
    q = np.sum(w * (t - np.sum(w * t) / w.sum()) ** 2)
    lam = np.sum((1 - w / w.sum()) ** 2 / nu)
    f_stat = q / 2 / (1 + 2 * lam / 8)
    assert test.statistic == pytest.approx(f_stat, rel=1e-9)
    assert test.to_polars()["df2"][0] == pytest.approx(8 / (3 * lam), rel=1e-9)
    assert "Welch" in test.summary() and test.df == 2
    # the default pools the variance per positive: r = sum (n+ - 1) n+ v / sum (n+ - 1), v_i = r / n+_i,
    # F = Q / (k - 1) against F(k - 1, sum (n+ - 1)), the one-way analysis of variance
    default = result.heterogeneity()
    n_pos = nu + 1
    r = np.sum(nu * n_pos * v) / nu.sum()
    wp = n_pos / r
    q_pooled = np.sum(wp * (t - np.sum(wp * t) / wp.sum()) ** 2)
    assert default.method == "jackknife" and default.statistic == pytest.approx(q_pooled / 2, rel=1e-9)
    assert default.to_polars()["df2"][0] == nu.sum()
    assert default.p_value == pytest.approx(f_distribution.sf(q_pooled / 2, 2, nu.sum()), rel=1e-8)
    np.testing.assert_allclose(default.groups_frame()["variance"].to_numpy(), r / n_pos, rtol=1e-9)
    assert "pooled" in default.summary()
    # AUROC keeps DeLong and the chi-square (no df2)
    roc = auroc(df, "y", "s", by="g").heterogeneity()
    assert roc.method == "delong" and roc.to_polars()["df2"][0] is None


def test_jackknife_edges_perfect_separation_one_positive_constant_score():
    rng = np.random.default_rng(9)
    y, s = _sample(rng, 60, 120)
    parts = [pl.DataFrame({"y": y, "s": s, "g": "ok"}), pl.DataFrame({"y": y, "s": s + 0.3, "g": "ok2"}),
             pl.DataFrame({"y": [True] * 5 + [False] * 5, "s": np.r_[np.arange(5) + 10.0, np.arange(5)], "g": "sep"}),
             pl.DataFrame({"y": [True] + [False] * 9, "s": np.arange(10.0), "g": "one"}),
             pl.DataFrame({"y": [True] * 4 + [False] * 6, "s": np.zeros(10), "g": "flat"})]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        result = aucpr(pl.concat(parts), "y", "s", by="g")
    with pytest.warns(DegenerateGroupWarning, match="3 group"):
        test = result.heterogeneity()
    reasons = dict(zip(test.groups_frame()["g"], test.groups_frame()["reason"]))
    # perfect separation: average precision is 1 (so is every leave-one-out estimate): no variance on the logit scale
    assert reasons["sep"] == "an estimate of 1: no variance on the logit scale"
    assert reasons["one"] == "fewer than 2 positives"
    # a constant score: every positive leaves the same estimate, every negative too (no spread within a class)
    assert reasons["flat"] == "a standard error of 0" and reasons["ok"] is None and reasons["ok2"] is None
    assert test.to_polars()["k"][0] == 2 and test.to_polars()["n_left_out"][0] == 3


def test_jackknife_options_are_checked():
    rng = np.random.default_rng(1)
    y, s = _sample(rng, 30, 60)
    df = pl.DataFrame({"y": np.r_[y, y], "s": np.r_[s, s + 0.1], "g": ["a"] * 90 + ["b"] * 90})
    result = aucpr(df, "y", "s", by="g")
    with pytest.raises(InputError, match="'pooled', 'seed' and 'max_units'"):
        result.heterogeneity(n_boot=100)
    with pytest.raises(InputError, match="max_units"):
        result.heterogeneity(max_units=1)
    with pytest.raises(InputTypeError, match="seed"):
        result.heterogeneity(seed="x")
    with pytest.raises(InputTypeError, match="pooled"):
        result.heterogeneity(pooled="yes")
    small = result.heterogeneity(max_units=10, seed=3)
    assert small.p_value == result.heterogeneity(max_units=10, seed=3).p_value
