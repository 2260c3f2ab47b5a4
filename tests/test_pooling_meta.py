"""Random-effects meta-analysis against metafor 3.8-1 (tests/reference/metafor_reference.R) and by hand."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, SmallSampleWarning
from aucpr_stats.combine import random_effects

REFERENCE = json.loads((Path(__file__).parent / "reference" / "metafor_reference.json").read_text())
DATASETS = REFERENCE["datasets"]
CASES = [(name, fit) for name in DATASETS for fit in DATASETS[name]["fits"]]
CI = {"z": "wald", "knha": "hksj"}


def _fit(name: str, key: str, prediction: str = "same") -> dict:
    data = DATASETS[name]
    y, v = np.array(data["yi"])[None], np.array(data["vi"])[None]
    fit = DATASETS[name]["fits"][key]
    return random_effects(y, v, np.ones_like(y, dtype=bool), method=fit["method"], ci=CI[fit["test"]],
                          prediction=prediction)


@pytest.mark.parametrize("name,key", CASES)
def test_every_column_equals_metafor(name, key):
    ref = DATASETS[name]["fits"][key]
    out = {k: float(v[0]) for k, v in _fit(name, key).items()}
    # tau2 converges to 1e-12 in both (metafor's REML steps halve towards 0 rather than stop at it)
    assert out["tau2"] == pytest.approx(ref["tau2"], abs=1e-10)
    assert out["pooled"] == pytest.approx(ref["beta"], rel=1e-9, abs=1e-11)
    assert out["se"] == pytest.approx(ref["se"], rel=1e-7)
    assert out["lower"] == pytest.approx(ref["ci.lb"], rel=1e-8, abs=1e-10)
    assert out["upper"] == pytest.approx(ref["ci.ub"], rel=1e-8, abs=1e-10)
    assert out["i_squared"] * 100 == pytest.approx(ref["I2"], rel=1e-8, abs=1e-8)
    assert out["h_squared"] == pytest.approx(ref["H2"], rel=1e-8)
    assert out["q"] == pytest.approx(ref["QE"], rel=1e-12)
    assert out["q_p_value"] == pytest.approx(ref["QEp"], rel=1e-9)
    assert out["pi_lower"] == pytest.approx(ref["predict"]["pi.lb"], rel=1e-8, abs=1e-10)
    assert out["pi_upper"] == pytest.approx(ref["predict"]["pi.ub"], rel=1e-8, abs=1e-10)
    assert (np.isnan(out["df"]) if ref["ddf"] is None else out["df"] == ref["ddf"])
    riley = {k: float(v[0]) for k, v in _fit(name, key, prediction="riley").items()}
    assert riley["pi_lower"] == pytest.approx(ref["predict_riley"]["pi.lb"], rel=1e-8, abs=1e-10)
    assert riley["pi_upper"] == pytest.approx(ref["predict_riley"]["pi.ub"], rel=1e-8, abs=1e-10)
    interval = ref["confint"]
    assert out["tau2_lower"] == pytest.approx(interval["tau2"]["ci.lb"], rel=1e-8, abs=1e-10)
    if interval["ub.sign"] != ">":  # ">": metafor's search stopped at its cap (tau2.max), not a bound
        assert out["tau2_upper"] == pytest.approx(interval["tau2"]["ci.ub"], rel=1e-8, abs=1e-10)
        assert out["i_squared_upper"] * 100 == pytest.approx(interval["I2"]["ci.ub"], rel=1e-8, abs=1e-8)
    else:
        assert out["tau2_upper"] > interval["tau2"]["ci.ub"]
    assert out["i_squared_lower"] * 100 == pytest.approx(interval["I2"]["ci.lb"], rel=1e-8, abs=1e-8)


@pytest.mark.parametrize("name", ["k5", "k12"])
@pytest.mark.parametrize("key", ["REML_knha", "DL_z"])
def test_leave_one_out_equals_metafor(name, key):
    ref = DATASETS[name]["fits"][key]["leave1out"]
    data = DATASETS[name]
    k = len(data["yi"])
    y = np.broadcast_to(np.array(data["yi"]), (k, k))
    v = np.broadcast_to(np.array(data["vi"]), (k, k))
    mask = ~np.eye(k, dtype=bool)
    fit = DATASETS[name]["fits"][key]
    out = random_effects(np.where(mask, y, 0), np.where(mask, v, 1), mask, method=fit["method"],
                         ci=CI[fit["test"]])
    np.testing.assert_allclose(out["pooled"], ref["estimate"], rtol=1e-9)
    np.testing.assert_allclose(out["lower"], ref["ci.lb"], rtol=1e-8)
    np.testing.assert_allclose(out["upper"], ref["ci.ub"], rtol=1e-8)
    np.testing.assert_allclose(out["q"], ref["Q"], rtol=1e-12)
    np.testing.assert_allclose(out["q_p_value"], ref["Qp"], rtol=1e-9)
    np.testing.assert_allclose(out["tau2"], ref["tau2"], atol=1e-10)
    np.testing.assert_allclose(out["i_squared"] * 100, ref["I2"], rtol=1e-8, atol=1e-8)


def _brute_reml(y, v):
    """REML by maximising the restricted log-likelihood on a fine grid, then a bounded optimiser."""
    from scipy.optimize import minimize_scalar

    def minus(t):
        w = 1 / (v + t)
        mu = (w * y).sum() / w.sum()
        return 0.5 * (np.log(v + t).sum() + np.log(w.sum()) + (w * (y - mu) ** 2).sum())

    grid = np.linspace(0, 4 * np.var(y) + 1e-9, 2001)
    best = grid[np.argmin([minus(t) for t in grid])]
    step = grid[1] - grid[0]
    res = minimize_scalar(minus, bounds=(max(0.0, best - step), best + step), method="bounded",
                          options={"xatol": 1e-12})
    return min((res.x, minus(res.x)), (0.0, minus(0.0)), key=lambda pair: pair[1])[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(0.001, 0.5)), min_size=2, max_size=12))
@example([(1.0, 0.00390625), (1.0, 0.001953125), (3.0, 0.375)])  # two modes: at 0 and at 0.925
@example([(0.0, 0.5)] * 5 + [(1.0, 0.125)])  # full Fisher steps oscillate between 0 and 0.233
def test_reml_maximises_the_restricted_likelihood_and_pm_solves_its_equation(sites):
    y = np.array([s[0] for s in sites])
    v = np.array([s[1] for s in sites])
    mask = np.ones((1, y.size), dtype=bool)
    reml = random_effects(y[None], v[None], mask, method="REML")
    assert reml["converged"][0]
    assert reml["tau2"][0] == pytest.approx(_brute_reml(y, v), abs=1e-5 * (1 + np.var(y)))
    pm = random_effects(y[None], v[None], mask, method="PM")
    w = 1 / (v + pm["tau2"][0])
    q = (w * (y - (w * y).sum() / w.sum()) ** 2).sum()
    if pm["tau2"][0] > 0:
        assert q == pytest.approx(y.size - 1, rel=1e-9)
    else:
        assert q <= y.size - 1 + 1e-9
    # the Q-profile interval holds the estimate's Q between the chi-square quantiles
    assert reml["tau2_lower"][0] <= reml["tau2_upper"][0]


def test_many_analyses_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(3)
    y = rng.normal(1.5, 0.4, (6, 9))
    v = rng.uniform(0.01, 0.2, (6, 9))
    mask = rng.random((6, 9)) > 0.3
    together = random_effects(np.where(mask, y, 0), np.where(mask, v, 1), mask)
    for i in range(6):
        alone = random_effects(y[i, mask[i]][None], v[i, mask[i]][None], np.ones((1, mask[i].sum()), bool))
        for name in ("pooled", "lower", "tau2", "tau2_upper", "pi_upper", "q"):
            assert together[name][i] == pytest.approx(alone[name][0], rel=1e-12, nan_ok=True)


# ------------------------------------------------------------------ result.meta() on per-site results
@pytest.fixture(scope="module")
def cohort():
    return pl.read_csv(Path(__file__).parents[1] / "data" / "synthetic_cohort.csv")


def test_meta_pools_the_sites_delong_variances_on_the_logit_scale(cohort):
    result = auroc(cohort, "disease", "model_a", by="site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        pooled = result.meta(method="DL", ci="wald")
    ci = result.conf_int_polars(method="delong")
    est = result.estimates.ravel()
    theta = np.log(est / (1 - est))
    v = (ci["se"].to_numpy() / (est * (1 - est))) ** 2
    w = 1 / v
    q = (w * (theta - (w * theta).sum() / w.sum()) ** 2).sum()
    tau2 = max(0.0, (q - 3) / (w.sum() - (w ** 2).sum() / w.sum()))
    wr = 1 / (v + tau2)
    mu = (wr * theta).sum() / wr.sum()
    row = pooled.to_polars().row(0, named=True)
    assert row["k"] == 4 and row["scale"] == "logit"
    assert row["q"] == pytest.approx(q, rel=1e-12)
    assert row["tau2"] == pytest.approx(tau2, abs=1e-14)
    assert row["estimate"] == pytest.approx(1 / (1 + np.exp(-mu)), rel=1e-12)
    half = 1.959963984540054 / np.sqrt(wr.sum())
    assert row["lower"] == pytest.approx(1 / (1 + np.exp(-(mu - half))), rel=1e-12)
    sites = pooled.sites.filter(pl.col("used"))
    assert sites["weight"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(sites["variance"].to_numpy(), v, rtol=1e-12)


def test_meta_splits_by_score_and_other_keys_and_leaves_one_out(cohort):
    result = auroc(cohort, "disease", ["model_a", "model_b"], by=["site", "age_band"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SmallSampleWarning, DegenerateGroupWarning))
        pooled = result.meta(across="site")
        alone = auroc(cohort.filter(pl.col("age_band") == "<50"), "disease", "model_b", by="site").meta()
    frame = pooled.to_polars()
    assert frame.height == 2 * cohort["age_band"].n_unique()
    row = frame.filter((pl.col("score") == "model_b") & (pl.col("age_band") == "<50")).row(0, named=True)
    assert row["estimate"] == pytest.approx(alone.estimate, rel=1e-12)
    loo = pooled.leave_one_out()
    assert set(loo["left_out_site"]) == set(cohort["site"])
    sub = loo.filter((pl.col("score") == "model_b") & (pl.col("age_band") == "<50") & (pl.col("left_out_site") == "A"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (SmallSampleWarning, DegenerateGroupWarning))
        without = auroc(cohort.filter((pl.col("age_band") == "<50") & (pl.col("site") != "A")), "disease",
                        "model_b", by="site").meta()
    assert sub["estimate"][0] == pytest.approx(without.estimate, rel=1e-12)
    assert sub["tau2"][0] == pytest.approx(without.tau2, abs=1e-14)


def test_a_site_with_one_class_is_left_out_with_its_reason(cohort):
    data = cohort.with_columns(pl.when(pl.col("site") == "C").then(0).otherwise(pl.col("disease")).alias("disease"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = aucpr(data, "disease", "model_a", by="site")
        pooled = result.meta()
    assert any(issubclass(w.category, DegenerateGroupWarning) and "left out of the meta" in str(w.message)
               for w in caught)
    row = pooled.to_polars().row(0, named=True)
    assert row["k"] == 3 and "site='C'" in row["note"]
    site_c = pooled.sites.filter(pl.col("site") == "C").row(0, named=True)
    assert not site_c["used"] and site_c["reason"]


def test_one_usable_site_gives_a_nan_row_and_a_warning(cohort):
    data = cohort.filter(pl.col("site").is_in(["A"]))
    with pytest.warns(DegenerateGroupWarning, match="fewer than two usable sites"):
        pooled = auroc(data, "disease", "model_a", by="site").meta()
    row = pooled.to_polars().row(0, named=True)
    assert np.isnan(row["estimate"]) and "no pooling" in row["note"]


def test_meta_refuses_bad_arguments(cohort):
    result = auroc(cohort, "disease", "model_a", by="site")
    with pytest.raises(InputError, match="`method`"):
        result.meta(method="ML")
    with pytest.raises(InputError, match="`ci`"):
        result.meta(ci="knha")
    with pytest.raises(InputError, match="prediction_interval"):
        result.meta(prediction_interval="yes")
    with pytest.raises(InputError, match="by="):
        auroc(cohort, "disease", "model_a").meta()


def test_calibration_pools_oe_on_the_log_scale(cohort):
    from aucpr_stats import calibration

    data = cohort.with_columns((1 / (1 + (-pl.col("model_a") - 1.5).exp())).alias("risk"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = calibration(data, "disease", "risk", by="site", statistic=["oe_ratio", "slope"]).meta()
    frame = pooled.to_polars()
    assert frame.filter(pl.col("estimator") == "oe_ratio")["scale"][0] == "log"
    assert frame.filter(pl.col("estimator") == "slope")["scale"][0] == "natural"


def test_publication_table_gains_the_pooled_rows_and_a_footnote(cohort):
    from aucpr_stats import publication_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = auroc(cohort, "disease", "model_a", by="site").meta()
    table = publication_table(pooled)
    frame = table.to_frame()
    keys = frame["site"].to_list()
    assert keys[-2:] == ["Random effects (REML, HKSJ)", "95% prediction interval"]
    row = pooled.to_polars().row(0, named=True)
    assert frame[frame.columns[-1]][-2] == f"{row['estimate']:.2f} ({row['lower']:.2f}\u2013{row['upper']:.2f})"
    assert frame[frame.columns[-1]][-1] == f"({row['pi_lower']:.2f}\u2013{row['pi_upper']:.2f})"
    assert frame["Positives"][-2] == cohort["disease"].sum() and frame["Positives"][-1] is None
    assert "Hartung-Knapp-Sidik-Jonkman" in table.note and "4 sites" in table.note
    with pytest.raises(InputError, match="alone"):
        publication_table([pooled, auroc(cohort, "disease", "model_a", by="site")])


def test_forest_plot_draws_the_diamond_and_the_prediction_interval(cohort):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.patches import Polygon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = auroc(cohort, "disease", "model_a", by="site").meta(prediction_interval="riley")
    ax = pooled.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-2].startswith("Random effects (REML, HKSJ)") and labels[-1] == "Prediction interval"
    diamonds = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(diamonds) == 1
    xs = diamonds[0].get_xy()[:, 0]
    row = pooled.to_polars().row(0, named=True)
    assert xs.min() == pytest.approx(row["lower"]) and xs.max() == pytest.approx(row["upper"])
    texts = [t.get_text() for t in ax.texts]
    assert f"({row['pi_lower']:.2f}\u2013{row['pi_upper']:.2f})" in texts
    matplotlib.pyplot.close("all")


def test_clustered_sites_pool_obuchowski_variances(cohort):
    data = cohort.with_row_index("row").with_columns((pl.col("row") // 3).alias("patient"))
    result = auroc(data, "disease", "model_a", by="site", cluster="patient")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = result.meta()
        se = result.conf_int_polars(method="obuchowski")["se"].to_numpy()
    e = result.estimates.ravel()
    assert pooled.variance_method == "delong"
    np.testing.assert_allclose(pooled.sites["variance"].to_numpy(), (se / (e * (1 - e))) ** 2, rtol=1e-12)


def test_prevalence_note_reads_each_test_own_groups():
    rng = np.random.default_rng(5)
    parts = []
    for rep, rates in ((1, (0.2, 0.2)), (2, (0.05, 0.4))):
        for g, rate in zip("ab", rates):
            y = (np.arange(400) < rate * 400).astype(int)
            parts.append(pl.DataFrame({"rep": rep, "g": g, "y": y, "s": y + rng.normal(0, 1, 400)}))
    data = pl.concat(parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = aucpr(data, "y", "s", by=["rep", "g"]).heterogeneity(across="g").to_polars().sort("rep")
        pooled = aucpr(data, "y", "s", by=["rep", "g"]).meta(across="g").to_polars().sort("rep")
    for frame in (test, pooled):
        notes = frame["note"].to_list()
        assert notes[0] is None or "prevalences differ" not in notes[0]
        assert "prevalences differ" in notes[1]
