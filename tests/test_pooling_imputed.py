"""``imputation=``: Rubin's rules over imputed data sets, checked against a hand computation of every column."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from aucpr_stats import aucpr, auroc, calibration, compare, net_benefit
from aucpr_stats.combine import random_effects
from aucpr_stats.exceptions import InputError


def _expit(x):
    return 1 / (1 + np.exp(-x))


@pytest.fixture(scope="module")
def imputed():
    """Five imputations of the shipped cohort: model_a's score imputed with noise, model_b complete."""
    df = pl.read_csv(Path(__file__).parents[1] / "data" / "synthetic_cohort.csv")
    rng = np.random.default_rng(11)
    risk = 1 / (1 + np.exp(-(df["model_b"].to_numpy() - 1.8)))
    return pl.concat([df.with_columns(pl.lit(i).alias(".imp"),
                                      (pl.col("model_a") + rng.normal(0, 0.4, df.height)).alias("model_a"),
                                      pl.Series("risk", np.clip(risk * rng.uniform(0.8, 1.2, df.height), 0.001, 0.999)))
                      for i in range(1, 6)])


def _hand_rubin(q, u, n):
    """Rubin (1987) with Barnard & Rubin's (1999) df, written from the papers (not from the library)."""
    m = q.size
    qbar, ubar, b = q.mean(), u.mean(), q.var(ddof=1)
    t = ubar + (1 + 1 / m) * b
    lam = (1 + 1 / m) * b / t
    df_old = (m - 1) / lam ** 2
    df_obs = (n - 1 + 1) / (n - 1 + 3) * (n - 1) * (1 - lam)
    df = df_old * df_obs / (df_old + df_obs)
    r = (1 + 1 / m) * b / ubar
    return {"estimate": qbar, "within": ubar, "between": b, "total": t, "df": df, "riv": r,
            "fmi": (r + 2 / (df + 3)) / (r + 1), "half": stats.t.ppf(0.975, df) * np.sqrt(t)}


def test_auroc_pooled_on_the_logit_scale_equals_a_hand_computation(imputed):
    pooled = auroc(imputed, "disease", "model_a", by="site", imputation=".imp")
    frame = pooled.conf_int_polars()
    assert frame["method"][0] == "delong" and pooled.m == 5 and pooled.by == ("site",)
    for site in ["A", "B", "C", "D"]:
        q, u = [], []
        for i in range(1, 6):
            one = auroc(imputed.filter((pl.col(".imp") == i) & (pl.col("site") == site)), "disease", "model_a")
            ci = one.conf_int_polars(method="delong")
            e, se = one.estimate, ci["se"][0]
            q.append(np.log(e / (1 - e)))
            u.append((se / (e * (1 - e))) ** 2)
        n = imputed.filter((pl.col(".imp") == 1) & (pl.col("site") == site)).height
        hand = _hand_rubin(np.array(q), np.array(u), n)
        row = frame.filter(pl.col("site") == site).row(0, named=True)
        for name in ("within", "between", "total", "df", "riv", "fmi"):
            assert row[name] == pytest.approx(hand[name], rel=1e-11), name
        assert row["estimate"] == pytest.approx(_expit(hand["estimate"]), rel=1e-13)
        assert row["lower"] == pytest.approx(_expit(hand["estimate"] - hand["half"]), rel=1e-11)
        assert row["upper"] == pytest.approx(_expit(hand["estimate"] + hand["half"]), rel=1e-11)
        e = _expit(hand["estimate"])
        assert row["se"] == pytest.approx(np.sqrt(hand["total"]) * e * (1 - e), rel=1e-11)
        assert row["scale"] == "logit" and row["m"] == 5
        point = pooled.to_polars().filter(pl.col("site") == site)["estimate"][0]
        assert point == pytest.approx(row["estimate"], rel=1e-14)


def test_the_same_numbers_from_pandas_and_any_row_order(imputed):
    a = auroc(imputed, "disease", "model_a", by="site", imputation=".imp").conf_int_polars()
    shuffled = imputed.sample(fraction=1.0, shuffle=True, seed=3).to_pandas()
    b = auroc(shuffled, "disease", "model_a", by="site", imputation=".imp").conf_int()
    b = pl.from_pandas(b).sort("site")
    np.testing.assert_allclose(b["lower"].to_numpy(), a.sort("site")["lower"].to_numpy(), rtol=1e-12)


def test_aucpr_calibration_and_net_benefit_pool_on_their_scales(imputed):
    pr = aucpr(imputed, "disease", "model_a", imputation=".imp").conf_int_polars()
    assert pr["method"][0] == "logit" and pr["scale"][0] == "logit"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = calibration(imputed, "disease", "risk", imputation=".imp", statistic=["oe_ratio", "slope"])
    frame = cal.conf_int_polars()
    assert frame.filter(pl.col("estimator") == "oe_ratio")["scale"][0] == "log"
    assert frame.filter(pl.col("estimator") == "slope")["scale"][0] == "natural"
    # O/E by hand: the mean of the logs, back-transformed
    ratios = []
    for i in range(1, 6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ratios.append(calibration(imputed.filter(pl.col(".imp") == i), "disease", "risk",
                                      statistic="oe_ratio").estimate)
    assert frame.filter(pl.col("estimator") == "oe_ratio")["estimate"][0] == pytest.approx(
        np.exp(np.mean(np.log(ratios))), rel=1e-13)
    nb = net_benefit(imputed, "disease", "risk", imputation=".imp", thresholds=[0.1]).conf_int_polars()
    values = [net_benefit(imputed.filter(pl.col(".imp") == i), "disease", "risk", thresholds=[0.1]).estimate
              for i in range(1, 6)]
    assert nb["scale"][0] == "natural" and nb["estimate"][0] == pytest.approx(np.mean(values), rel=1e-13)


def test_paired_comparison_pooled_equals_rubin_of_each_imputations_delong(imputed):
    pooled = compare(imputed, "disease", ["model_a", "model_b"], metric="auroc", imputation=".imp")
    row = pooled.to_polars().row(0, named=True)
    q, u = [], []
    for i in range(1, 6):
        one = compare(imputed.filter(pl.col(".imp") == i), "disease", ["model_a", "model_b"], metric="auroc")
        q.append(one.difference)
        u.append(one.to_polars()["se"][0] ** 2)
    hand = _hand_rubin(np.array(q), np.array(u), imputed.filter(pl.col(".imp") == 1).height)
    assert row["difference"] == pytest.approx(hand["estimate"], rel=1e-13)
    assert row["se"] == pytest.approx(np.sqrt(hand["total"]), rel=1e-12)
    assert row["df"] == pytest.approx(hand["df"], rel=1e-11)
    assert row["lower"] == pytest.approx(hand["estimate"] - hand["half"], rel=1e-11)
    t = hand["estimate"] / np.sqrt(hand["total"])
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), hand["df"]), rel=1e-9)
    assert row["m"] == 5 and "pooled over 5 imputations" in row["note"]
    assert pooled.by == ()


def test_d2_heterogeneity_equals_a_hand_computation(imputed):
    pooled = auroc(imputed, "disease", "model_a", by="site", imputation=".imp")
    test = pooled.heterogeneity(test="D2").to_polars().row(0, named=True)
    qs = []
    for i in range(1, 6):
        one = auroc(imputed.filter(pl.col(".imp") == i), "disease", "model_a", by="site")
        theta = one.estimates.ravel()
        w = 1 / one.conf_int_polars(method="delong")["se"].to_numpy() ** 2
        qs.append((w * (theta - (w * theta).sum() / w.sum()) ** 2).sum())
    d = np.array(qs)
    k, m = 3, 5
    r2 = (1 + 1 / m) * np.var(np.sqrt(d), ddof=1)
    statistic = (d.mean() / k - (m + 1) / (m - 1) * r2) / (1 + r2)
    df2 = k ** (-3 / m) * (m - 1) * (1 + 1 / r2) ** 2
    assert test["statistic"] == pytest.approx(statistic, rel=1e-10)
    assert test["df2"] == pytest.approx(df2, rel=1e-10)
    assert test["p_value"] == pytest.approx(stats.f.sf(max(statistic, 0), k, df2), rel=1e-8, abs=1e-15)
    d1 = pooled.heterogeneity().to_polars().row(0, named=True)
    assert d1["test"] == "D1" and d1["df"] == 3 and 0 <= d1["p_value"] <= 1


def test_meta_of_an_imputed_result_pools_the_rubin_values(imputed):
    pooled = auroc(imputed, "disease", "model_a", by="site", imputation=".imp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meta = pooled.meta()
    per_site = pooled.conf_int_polars()
    e = per_site["estimate"].to_numpy()
    y, v = np.log(e / (1 - e)), per_site["total"].to_numpy()
    fit = random_effects(y[None], v[None], np.ones((1, 4), bool))
    assert meta.estimate == pytest.approx(_expit(fit["pooled"][0]), rel=1e-12)
    assert meta.tau2 == pytest.approx(fit["tau2"][0], abs=1e-14)


def test_bad_imputation_columns_get_clear_errors(imputed):
    one = imputed.filter(pl.col(".imp") == 1)
    with pytest.raises(InputError, match="1 level"):
        auroc(one, "disease", "model_a", imputation=".imp")
    with pytest.raises(InputError, match="already the `by` column"):
        auroc(imputed, "disease", "model_a", by=".imp", imputation=".imp")
    with pytest.raises(InputError, match="imputation"):
        auroc(imputed, "disease", "model_a", imputation="no_such_column")
    with pytest.raises(InputError, match="one interval method"):
        auroc(imputed, "disease", "model_a", imputation=".imp").conf_int(method=["delong", "logit"])
    with pytest.raises(InputError, match="calibration"):
        compare(imputed, "disease", ["risk", "risk"], metric="calibration", imputation=".imp")


def test_a_group_absent_from_an_imputation_and_sizes_that_differ_are_said(imputed):
    ragged = imputed.filter(~((pl.col(".imp") == 2) & (pl.col("site") == "C")))
    ragged = ragged.filter(~((pl.col(".imp") == 3) & (pl.col("site") == "A") & (pl.col("model_b") > 2)))
    pooled = auroc(ragged, "disease", "model_a", by="site", imputation=".imp", unused_levels="drop")
    frame = pooled.conf_int_polars().sort("site")
    c = frame.filter(pl.col("site") == "C").row(0, named=True)
    assert c["m"] == 4 and "in 4 of 5 imputations" in c["note"]
    a = frame.filter(pl.col("site") == "A").row(0, named=True)
    assert a["m"] == 5 and "counts differ between imputations" in a["note"]


def test_bootstrap_within_variances_are_reproducible(imputed):
    pooled = aucpr(imputed, "disease", "model_a", imputation=".imp")
    a = pooled.conf_int_polars(method="bootstrap", n_boot=200, seed=4)
    b = pooled.conf_int_polars(method="bootstrap", n_boot=200, seed=4)
    assert a.equals(b) and a["within"][0] > 0
    c = pooled.conf_int_polars(method="bootstrap", n_boot=200, seed=5)
    assert c["lower"][0] != a["lower"][0] and c["estimate"][0] == a["estimate"][0]


def test_cutoffs_pool_each_proportion_on_the_logit_scale(imputed):
    from aucpr_stats import cutoffs

    pooled = cutoffs(imputed, "disease", "model_a", threshold=[1.0, "youden"], imputation=".imp")
    frame = pooled.conf_int_polars()
    row = frame.filter((pl.col("criterion") == "value") & (pl.col("measure") == "sensitivity")).row(0, named=True)
    q, u = [], []
    for i in range(1, 6):
        one = cutoffs(imputed.filter(pl.col(".imp") == i), "disease", "model_a", threshold=1.0).conf_int_polars()
        sens = one.filter(pl.col("measure") == "sensitivity").row(0, named=True)
        lo, hi = np.log(sens["lower"] / (1 - sens["lower"])), np.log(sens["upper"] / (1 - sens["upper"]))
        q.append(np.log(sens["estimate"] / (1 - sens["estimate"])))
        u.append(((hi - lo) / (2 * stats.norm.ppf(0.975))) ** 2)
    n = imputed.filter(pl.col(".imp") == 1).height
    hand = _hand_rubin(np.array(q), np.array(u), n)
    assert row["estimate"] == pytest.approx(_expit(hand["estimate"]), rel=1e-12)
    assert row["lower"] == pytest.approx(_expit(hand["estimate"] - hand["half"]), rel=1e-10)
    assert row["df"] == pytest.approx(hand["df"], rel=1e-10)
    youden = frame.filter(pl.col("criterion") == "youden").row(0, named=True)
    assert "threshold chosen in each imputation" in youden["note"]
    assert pooled.to_polars().height == 2
    with pytest.raises(InputError, match="threshold='all'"):
        cutoffs(imputed, "disease", "model_a", threshold="all", imputation=".imp")


def test_the_command_line_pools_imputations_and_sites(imputed, tmp_path, capsys):
    from aucpr_stats.cli import main

    path = tmp_path / "imputed.csv"
    imputed.write_csv(path)
    assert main([str(path), "--outcome", "disease", "--score", "model_a", "--by", "site", "--metric", "auroc",
                 "--imputation", ".imp", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    pooled = auroc(imputed, "disease", "model_a", by="site", imputation=".imp").conf_int_polars()
    a = pooled.filter(pl.col("site") == "A").row(0, named=True)
    assert f"{a['estimate']:.2f} ({a['lower']:.2f}\u2013{a['upper']:.2f})" in out
    one = tmp_path / "one.csv"
    imputed.filter(pl.col(".imp") == 1).write_csv(one)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([str(one), "--outcome", "disease", "--score", "model_b", "--by", "site", "--metric", "auroc",
                     "--meta"]) == 0
    out = capsys.readouterr().out
    meta = auroc(imputed.filter(pl.col(".imp") == 1), "disease", "model_b", by="site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = meta.meta().to_polars().row(0, named=True)
    assert "Random effects (REML, HKSJ)" in out and f"({row['pi_lower']:.2f}\u2013{row['pi_upper']:.2f})" in out
    assert main([str(one), "--outcome", "disease", "--score", "model_b", "--metric", "auroc", "--meta"]) != 0
    assert "--meta pools" in capsys.readouterr().err


def test_meta_of_an_imputed_aucpr_uses_the_rubin_logit_variances(imputed):
    pooled = aucpr(imputed, "disease", "model_a", by="site", imputation=".imp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meta = pooled.meta(method="DL", ci="wald")
    per_site = pooled.conf_int_polars()
    e = per_site["estimate"].to_numpy()
    y, v = np.log(e / (1 - e)), per_site["total"].to_numpy()
    fit = random_effects(y[None], v[None], np.ones((1, 4), bool), method="DL", ci="wald")
    assert meta.estimate == pytest.approx(_expit(fit["pooled"][0]), rel=1e-12)
    assert meta.sites["variance"].to_numpy() == pytest.approx(v, rel=1e-12)
