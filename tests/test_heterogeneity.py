"""Heterogeneity and interaction tests across subgroups, and the multiplicity adjustment of comparisons.

Oracles: statsmodels' ``combine_effects`` (Cochran's Q, its chi-square test,
I^2) fed with per-group variances computed here from the formulas (DeLong's
placement values by brute force over all pairs, the binomial variance on the
logit scale); scikit-learn's average precision; statsmodels' ``multipletests``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.compare.heterogeneity import HeterogeneityResult, cochran_q
from aucpr_stats.compare.interaction import heterogeneity_rows
from aucpr_stats.exceptions import (
    DegenerateGroupWarning,
    InputError,
    SmallSampleWarning,
)


def _data(n=1200, groups=("a", "b", "c"), seed=3):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({
        "y": y,
        "s1": rng.normal(size=n) + 1.0 * y,
        "s2": rng.normal(size=n) + 0.6 * y,
        "g": rng.choice(list(groups), n),
        "h": rng.choice(["m", "f"], n),
    })


def _delong_brute(pos: np.ndarray, neg: np.ndarray):
    """AUC, and DeLong's placement values, from every (positive, negative) pair."""
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(), psi.mean(axis=1), psi.mean(axis=0)


def _delong_var(pos, neg):
    auc, v10, v01 = _delong_brute(pos, neg)
    return auc, v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size


def _oracle(effects, variances):
    res = combine_effects(np.asarray(effects), np.asarray(variances))
    test = res.test_homogeneity()
    return float(test.statistic), int(test.df), float(test.pvalue), max(0.0, float(res.i2))


# ------------------------------------------------------------------ the kernel
def test_cochran_q_matches_statsmodels_per_cell():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=30)
    var = rng.uniform(0.01, 0.2, size=30)
    cell = np.repeat(np.arange(6), 5)
    out = cochran_q(theta, var, cell, 6)
    for c in range(6):
        q, df, p, i2 = _oracle(theta[cell == c], var[cell == c])
        assert out["statistic"][c] == pytest.approx(q, rel=1e-10)
        assert out["df"][c] == df and out["k"][c] == 5
        assert out["p_value"][c] == pytest.approx(p, rel=1e-9)
        assert out["i_squared"][c] == pytest.approx(i2, abs=1e-12)


def test_cochran_q_leaves_out_unusable_and_needs_two():
    out = cochran_q(np.array([0.5, 0.6, np.nan, 0.7, 0.1]), np.array([0.01, 0.0, 0.01, np.nan, 0.02]),
                    np.array([0, 0, 0, 1, 1]), 2)
    assert out["k"].tolist() == [1, 1]
    assert np.isnan(out["statistic"]).all() and np.isnan(out["p_value"]).all() and np.isnan(out["df"]).all()
    assert out["pooled"][0] == pytest.approx(0.5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(1e-3, 1.0)), min_size=2, max_size=8),
       st.floats(0.1, 10.0), st.randoms(use_true_random=False))
def test_cochran_q_invariants(pairs, c, random):
    theta = np.array([t for t, _ in pairs])
    var = np.array([v for _, v in pairs])
    cell = np.zeros(theta.size, dtype=np.int64)
    out = cochran_q(theta, var, cell, 1)
    q = out["statistic"][0]
    assert q >= -1e-12 and 0.0 <= out["i_squared"][0] <= 1.0
    order = list(range(theta.size))
    random.shuffle(order)
    assert cochran_q(theta[order], var[order], cell, 1)["statistic"][0] == pytest.approx(q, rel=1e-9, abs=1e-12)
    # a change of scale of the estimates (theta -> c theta + 1, var -> c^2 var) leaves Q unchanged
    scaled = cochran_q(c * theta + 1.0, c * c * var, cell, 1)["statistic"][0]
    assert scaled == pytest.approx(q, rel=1e-7, abs=1e-9)
    # equal estimates: no heterogeneity
    assert cochran_q(np.full(theta.size, 0.3), var, cell, 1)["statistic"][0] == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------ heterogeneity of one area
@pytest.mark.parametrize("kind", ["polars", "pandas"])
def test_auroc_delong_matches_brute_force(kind):
    df = _data()
    frame = df.to_pandas() if kind == "pandas" else df
    test = auroc(frame, "y", "s1", by="g").heterogeneity()
    effects, variances = [], []
    for level in ("a", "b", "c"):
        part = df.filter(pl.col("g") == level)
        y, s = part["y"].to_numpy(), part["s1"].to_numpy()
        auc, var = _delong_var(s[y], s[~y])
        effects.append(auc)
        variances.append(var)
    q, dof, p, i2 = _oracle(effects, variances)
    assert test.statistic == pytest.approx(q, rel=1e-9)
    assert test.df == dof and test.p_value == pytest.approx(p, rel=1e-8)
    out = test.to_frame()
    assert isinstance(out, pd.DataFrame if kind == "pandas" else pl.DataFrame)
    assert float(out["i_squared"][0]) == pytest.approx(i2, abs=1e-12)
    w = 1 / np.array(variances)
    assert float(out["pooled"][0]) == pytest.approx(float(w @ effects / w.sum()), rel=1e-10)
    assert test.method == "delong" and test.scale == "natural" and int(out["k"][0]) == 3


def test_aucpr_logit_matches_formula_and_sklearn():
    df = _data()
    test = aucpr(df, "y", "s1", by="g", estimator="average_precision").heterogeneity("logit")
    effects, variances = [], []
    for level in ("a", "b", "c"):
        part = df.filter(pl.col("g") == level)
        y = part["y"].to_numpy()
        ap = average_precision_score(y, part["s1"].to_numpy())
        effects.append(np.log(ap / (1 - ap)))
        variances.append(1.0 / (y.sum() * ap * (1 - ap)))  # (binomial SE / (ap (1 - ap)))^2
    q, dof, p, _ = _oracle(effects, variances)
    assert test.scale == "logit" and test.method == "logit" and test.df == dof
    assert test.statistic == pytest.approx(q, rel=1e-9) and test.p_value == pytest.approx(p, rel=1e-8)


def test_bootstrap_variances_are_those_of_conf_int_and_reproducible():
    df = _data(n=600)
    result = aucpr(df, "y", "s1", by="g")
    test = result.heterogeneity("bootstrap", n_boot=100, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        se = result.conf_int(method="bootstrap", n_boot=100, seed=5)["se"].to_numpy()
    theta = result.estimates[:, 0]
    q, *_ = _oracle(np.log(theta / (1 - theta)), (se / (theta * (1 - theta))) ** 2)
    assert test.statistic == pytest.approx(q, rel=1e-9)
    assert result.heterogeneity("bootstrap", n_boot=100, seed=5).statistic == test.statistic
    natural = auroc(df, "y", "s1", by="g").heterogeneity("bootstrap", n_boot=100, seed=5)
    assert natural.scale == "natural"


def test_one_row_per_score_and_estimator_and_across():
    df = _data()
    result = aucpr(df, "y", ["s1", "s2"], by=["g", "h"], estimator=["average_precision", "lower_trapezoid"])
    table = result.heterogeneity("logit").to_polars()
    assert table.height == 4 and set(table["score"]) == {"s1", "s2"} and (table["k"] == 6).all()
    split = result.heterogeneity("logit", across="g").to_polars()
    assert split.height == 8 and (split["k"] == 3).all() and "h" in split.columns
    rows = heterogeneity_rows(result, "logit")
    assert {"statistic", "df", "p_value"} <= set(rows.columns) and rows.height == 4
    # each test equals the test of that score and estimator alone
    alone = aucpr(df, "y", "s2", by=["g", "h"], estimator="lower_trapezoid").heterogeneity("logit")
    row = table.filter((pl.col("score") == "s2") & (pl.col("estimator") == "lower_trapezoid"))
    assert row["statistic"][0] == pytest.approx(alone.statistic, rel=1e-12)


def test_degenerate_and_boundary_groups_are_left_out_with_reasons():
    df = _data(n=900)
    extra = pl.DataFrame({"y": [False] * 20, "s1": np.linspace(0, 1, 20), "s2": np.zeros(20),
                          "g": ["none"] * 20, "h": ["m"] * 20})
    perfect = pl.DataFrame({"y": [True] * 10 + [False] * 10, "s1": np.r_[np.arange(10) + 100.0, np.arange(10)],
                            "s2": np.zeros(20), "g": ["sep"] * 20, "h": ["m"] * 20})
    data = pl.concat([df, extra, perfect])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        result = aucpr(data, "y", "s1", by="g")
    with pytest.warns(DegenerateGroupWarning, match="2 group"):
        test = result.heterogeneity("logit")
    groups = test.groups_frame()
    reasons = dict(zip(groups["g"], groups["reason"]))
    # perfectly separated: average precision (the default) is 1, which has no variance on the logit scale
    assert "no positives" in reasons["none"] and reasons["sep"] == "an estimate of 1: no variance on the logit scale"
    assert reasons["a"] is None and test.to_polars()["k"][0] == 3
    assert test.to_polars()["n_left_out"][0] == 2 and "g='sep'" in test.to_polars()["note"][0]
    # the test on the three usable groups alone is the same
    clean = aucpr(df, "y", "s1", by="g").heterogeneity("logit")
    assert test.statistic == pytest.approx(clean.statistic, rel=1e-12)
    with pytest.warns(DegenerateGroupWarning):
        ap = aucpr(data, "y", "s1", by="g", estimator="average_precision").heterogeneity("logit")
    assert ap.groups_frame().filter(pl.col("g") == "sep")["reason"][0].startswith("an estimate of 1")
    # DeLong: perfect separation gives a standard error of 0 -> left out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        roc = auroc(data, "y", "s1", by="g").heterogeneity()
    assert roc.groups_frame().filter(pl.col("g") == "sep")["reason"][0] == "a standard error of 0"


def test_fewer_than_two_usable_groups_gives_no_test():
    df = _data(n=400, groups=("a",))
    data = pl.concat([df, pl.DataFrame({"y": [False] * 5, "s1": np.zeros(5), "s2": np.zeros(5),
                                        "g": ["b"] * 5, "h": ["m"] * 5})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        test = auroc(data, "y", "s1", by="g").heterogeneity()
    assert np.isnan(test.p_value) and np.isnan(test.df) and "fewer than two groups" in test.to_polars()["note"][0]


def test_small_groups_are_flagged():
    test = auroc(_data(n=150), "y", "s1", by="g").heterogeneity()
    assert "fewer than 50 positives" in test.to_polars()["note"][0]


def test_bad_arguments():
    df = _data(n=300)
    with pytest.raises(InputError, match="grouped result"):
        auroc(df, "y", "s1").heterogeneity()
    with pytest.raises(InputError, match="`method`"):
        aucpr(df, "y", "s1", by="g").heterogeneity("delong")
    with pytest.raises(InputError, match="`across`"):
        auroc(df, "y", "s1", by="g").heterogeneity(across="h")
    with pytest.raises(InputError, match="`scale`"):
        auroc(df, "y", "s1", by="g").heterogeneity(scale="log")
    with pytest.raises(InputError, match="bootstrap"):
        auroc(df, "y", "s1", by="g").heterogeneity(n_boot=10)


def test_displays():
    test = auroc(_data(), "y", "s1", by="g").heterogeneity()
    assert isinstance(test, HeterogeneityResult)
    assert "Heterogeneity" in test.summary() and "across g" in test.summary()
    assert "p_value=" in repr(test) and "<table" in test._repr_html_()


# ------------------------------------------------------------------ interaction
def test_paired_auroc_interaction_matches_brute_force_delong():
    df = _data()
    test = compare(df, "y", ["s1", "s2"], by="g", metric="auroc").interaction()
    effects, variances = [], []
    for level in ("a", "b", "c"):
        part = df.filter(pl.col("g") == level)
        y = part["y"].to_numpy()
        a, b = part["s1"].to_numpy(), part["s2"].to_numpy()
        auc_a, v10a, v01a = _delong_brute(a[y], a[~y])
        auc_b, v10b, v01b = _delong_brute(b[y], b[~y])
        var = np.var(v10a - v10b, ddof=1) / y.sum() + np.var(v01a - v01b, ddof=1) / (~y).sum()
        effects.append(auc_a - auc_b)
        variances.append(var)
    q, dof, p, _ = _oracle(effects, variances)
    assert test.kind == "interaction" and test.statistic == pytest.approx(q, rel=1e-8)
    assert test.df == dof and test.p_value == pytest.approx(p, rel=1e-7)


def test_interaction_one_row_per_pair_and_bootstrap():
    df = _data(n=900)
    test = compare(df, "y", ["s1", "s2"], by="g", metric="aucpr", n_boot=100, seed=2).interaction("bootstrap")
    table = test.to_polars()
    assert table.height == 1 and test.method == "bootstrap"
    cmp = compare(df, "y", ["s1", "s2"], by="g", metric="aucpr", n_boot=100, seed=2).to_polars()
    q, *_ = _oracle(cmp["difference"].to_numpy(), cmp["se"].to_numpy() ** 2)
    assert test.statistic == pytest.approx(q, rel=1e-10)
    three = compare(df.with_columns(s3=pl.col("s1") * 0.5 + pl.col("s2")), "y", ["s1", "s2", "s3"], by="g")
    assert three.interaction().to_polars().height == 3
    with pytest.raises(InputError, match="grouped"):
        compare(df, "y", ["s1", "s2"]).interaction()


def test_unpaired_interaction_matches_brute_force_delong():
    df = _data(n=1500)
    test = compare(df, "y", ["s1", "s2"], between="h", by="g", metric="auroc").interaction()
    table = test.to_polars()
    assert table.height == 2 and set(table["score"]) == {"s1", "s2"}
    for score in ("s1", "s2"):
        effects, variances = [], []
        for level in ("a", "b", "c"):
            parts = []
            for h in ("f", "m"):
                part = df.filter((pl.col("g") == level) & (pl.col("h") == h))
                y, s = part["y"].to_numpy(), part[score].to_numpy()
                parts.append(_delong_var(s[y], s[~y]))
            effects.append(parts[0][0] - parts[1][0])
            variances.append(parts[0][1] + parts[1][1])
        q, *_ = _oracle(effects, variances)
        assert table.filter(pl.col("score") == score)["statistic"][0] == pytest.approx(q, rel=1e-9)


# ------------------------------------------------------------------ multiplicity
@pytest.mark.parametrize("adjust,oracle", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_adjust_matches_statsmodels_within_each_group(adjust, oracle):
    df = _data().with_columns(s3=pl.col("s1") + pl.col("s2"), s4=pl.col("s2") * 2 + pl.col("s1"))
    out = compare(df, "y", ["s1", "s2", "s3", "s4"], by="g", adjust=adjust).to_polars()
    assert out.columns[out.columns.index("p_value") + 1] == "p_adjusted"
    for level in ("a", "b", "c"):
        part = out.filter(pl.col("g") == level)
        expected = multipletests(part["p_value"].to_numpy(), method=oracle)[1]
        np.testing.assert_allclose(part["p_adjusted"].to_numpy(), expected, rtol=1e-12)
    assert (out["p_adjusted"] >= out["p_value"] - 1e-15).all()
    assert "p_adjusted" not in compare(df, "y", ["s1", "s2"], by="g").to_polars().columns


def test_adjust_unpaired_and_nan_rows():
    df = _data(n=1500, groups=("a", "b", "c", "d"))
    data = pl.concat([df, pl.DataFrame({"y": [False] * 5, "s1": np.zeros(5), "s2": np.zeros(5),
                                        "g": ["e"] * 5, "h": ["m"] * 5})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        out = compare(data, "y", ["s1"], between="g", adjust="holm", metric="auroc").to_polars()
    p = out["p_value"].to_numpy()
    ok = np.isfinite(p)
    assert (~ok).sum() == 4 and np.isnan(out["p_adjusted"].to_numpy()[~ok]).all()
    np.testing.assert_allclose(out["p_adjusted"].to_numpy()[ok], multipletests(p[ok], method="holm")[1], rtol=1e-12)
    with pytest.raises(InputError, match="`adjust`"):
        compare(df, "y", ["s1", "s2"], adjust="fdr", metric="auroc")
    assert "Holm" in compare(df, "y", ["s1", "s2"], by="g", adjust="holm", metric="auroc").summary()


def test_p_values_past_the_reference_distribution_are_floored_not_zero():
    """A chi-square or normal tail beyond double precision is stored as the smallest normal double, never 0."""
    from scipy.stats import chi2

    from aucpr_stats.compare.statistics import P_FLOOR

    rng = np.random.default_rng(0)
    n = 40_000
    y = rng.random(n) < 0.3
    g = np.arange(n) % 2
    frame = pl.DataFrame({"y": y, "s": np.where(g == 0, y + rng.normal(size=n) * 0.35, rng.normal(size=n)),
                          "noise": rng.normal(size=n), "g": g})
    test = auroc(frame, "y", "s", by="g").heterogeneity()
    assert chi2.sf(test.statistic, 1) == 0.0  # the tail underflows: the case the floor is for
    assert test.p_value == P_FLOOR > 0.0
    paired = compare(frame.filter(pl.col("g") == 0), "y", ["s", "noise"], metric="auroc")
    assert abs(paired.frame["z"][0]) > 40
    assert paired.frame["p_value"][0] == P_FLOOR
    assert test.to_frame()["p_value"][0] > 0.0


def test_aucpr_heterogeneity_across_different_prevalences_says_so_and_a_common_prevalence_does_not():
    from scipy.stats import chi2_contingency

    from aucpr_stats.compare.prevalence import prevalence_note

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(4), 500)
    y = rng.random(g.size) < np.array([0.05, 0.1, 0.2, 0.4])[g]
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size)})  # a pure-noise score
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample = aucpr(frame, "y", "s", by="g").heterogeneity()
        common = aucpr(frame, "y", "s", by="g", prevalence=0.1).heterogeneity()
    assert sample.p_value < 1e-10 and common.p_value > 0.05  # the test reads the prevalences, not the score
    assert "prevalences differ" in sample.to_polars()["note"][0]
    assert "prevalences differ" not in (common.to_polars()["note"][0] or "")
    counts = np.array([[y[g == k].sum() for k in range(4)], [(~y[g == k]).sum() for k in range(4)]])
    p = chi2_contingency(counts, correction=False)[1]
    assert f"p = {p:.2g}" in sample.to_polars()["note"][0]
    assert prevalence_note(np.array([30, 31, 29]), np.array([270, 269, 271])) is None
    assert auroc(frame, "y", "s", by="g").heterogeneity().to_polars()["note"].fill_null("").str.contains(
        "prevalences differ").sum() == 0


def test_a_heterogeneity_test_over_small_groups_warns_and_notes_it():
    from aucpr_stats.exceptions import SmallSampleWarning

    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(5), 150)
    y = rng.random(g.size) < 0.2  # about 30 positives a group, below the 50 the size was checked from
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y})
    with pytest.warns(SmallSampleWarning, match="below 50 positives"):
        test = auroc(frame, "y", "s", by="g").heterogeneity()
    assert "5 group(s) with fewer than 50 positives" in test.to_polars()["note"][0]
    big = pl.DataFrame({"g": np.repeat(np.arange(3), 600), "y": rng.random(1800) < 0.3,
                        "s": rng.normal(size=1800)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        auroc(big, "y", "s", by="g").heterogeneity()  # every group above 50 positives: no warning


def test_a_chi_square_test_across_many_groups_needs_more_positives_per_group():
    """DeLong's Q over 10 groups of about 60 positives: above 50 but below 10 x 10 = 100 per group, so it warns
    and says why; the AUCPR jackknife's F test over the same groups does not (it held its size there)."""
    from aucpr_stats.compare.heterogeneity import POSITIVES_PER_GROUP_CHI_SQUARE
    from aucpr_stats.exceptions import SmallSampleWarning

    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(10), 300)
    y = np.tile(np.r_[np.ones(60, bool), np.zeros(240, bool)], 10)
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y})
    assert POSITIVES_PER_GROUP_CHI_SQUARE * 10 > 60 > 50
    with pytest.warns(SmallSampleWarning, match="below 100 positives"):
        test = auroc(frame, "y", "s", by="g").heterogeneity()
    assert "10 group(s) with fewer than 100 positives" in test.to_polars()["note"][0]
    assert "chi-square test across 10 groups" in test.to_polars()["note"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        jackknife = aucpr(frame, "y", "s", by="g").heterogeneity()
    assert jackknife.method == "jackknife" and "fewer than" not in (jackknife.to_polars()["note"][0] or "")
