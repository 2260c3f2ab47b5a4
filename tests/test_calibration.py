"""calibration(): every statistic and interval against R (rms, glm, sandwich) and independent code, and its edges.

The R values are in tests/reference/calibration_reference.json, made by
tests/reference/calibration_reference.R (see its header).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats import (DegenerateGroupWarning, ExtremePredictionWarning, InputError, calibration)

HERE = Path(__file__).parent
REFERENCE = json.loads((HERE / "reference" / "calibration_reference.json").read_text())
CASES = REFERENCE["cases"]
SIM = pl.read_csv(HERE / "reference" / "calibration_data.csv")
CANCER = pl.read_csv(HERE.parent / "data" / "breast_cancer_oof.csv")


def _frame(case: str) -> tuple[pl.DataFrame, str, str]:
    data, score = case.split("/")[:2]
    if data == "sim":
        return SIM, "y", score
    frame = CANCER
    if case.endswith("open_subset"):
        frame = frame.filter((pl.col(score) > 0) & (pl.col(score) < 1))
    return frame, "malignant", score


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calibration(*args, **kwargs)


def _values(result, method=None, **options) -> dict:
    frame = result.to_polars() if method is None else result.conf_int_polars(method=method, **options)
    return {row["estimator"]: row for row in frame.iter_rows(named=True)}


@pytest.mark.parametrize("case", list(CASES))
def test_sums_equal_r(case):
    """O/E, Brier, scaled Brier and Spiegelhalter's z and p over all rows (p of 0 and 1 included), as R."""
    ref = CASES[case]
    frame, y, p = _frame(case)
    got = _values(_quiet(frame, y, p))
    assert got["brier"]["estimate"] == pytest.approx(ref["brier"], rel=1e-13)
    assert got["brier"]["estimate"] == pytest.approx(ref["val_prob"]["stats"]["Brier"], rel=1e-13)
    assert got["scaled_brier"]["estimate"] == pytest.approx(ref["scaled_brier"], rel=1e-12)
    assert got["oe_ratio"]["estimate"] == pytest.approx(ref["oe"], rel=1e-13)
    assert got["spiegelhalter_z"]["estimate"] == pytest.approx(ref["spiegelhalter"]["z"], rel=1e-12)
    assert got["spiegelhalter_z"]["estimate"] == pytest.approx(ref["val_prob"]["stats"]["S:z"], rel=1e-12)
    assert got["spiegelhalter_p"]["estimate"] == pytest.approx(ref["spiegelhalter"]["p_two_sided"], rel=1e-10)


FITTED = [case for case in CASES if "citl" in CASES[case]]


@pytest.mark.parametrize("case", FITTED)
def test_fits_equal_glm_and_rms(case):
    """CITL, the recalibration and their Wald and exact profile intervals, as R's glm (and rms' val.prob)."""
    ref = CASES[case]
    frame, y, p = _frame(case)
    frame = frame.filter((pl.col(p) > 0) & (pl.col(p) < 1))
    result = _quiet(frame, y, p)
    wald = _values(result, "wald")
    profile = _values(result, "profile")
    citl, recal = ref["citl"], ref["recalibration"]
    assert wald["citl"]["estimate"] == pytest.approx(citl["intercept"], abs=1e-10)
    # CITL's standard error is the sandwich (its offset model is misspecified when the slope is not 1): the
    # oracle from the rows, HC0 with the n/(n - 1) factor of each class
    y = frame[y].to_numpy().astype(float)
    p = frame[p].to_numpy()
    x = np.log(p / (1 - p))
    mu = 1 / (1 + np.exp(-(x + citl["intercept"])))
    info = np.sum(mu * (1 - mu))
    unit = (y - mu) / info
    robust = np.sqrt(sum(c.sum() / (c.sum() - 1) * np.sum(unit[c] ** 2) for c in (y == 1, y == 0)))
    assert wald["citl"]["se"] == pytest.approx(robust, rel=1e-7)
    assert wald["citl"]["lower"] == pytest.approx(citl["intercept"] - 1.959963984540054 * robust, abs=1e-7)
    # the robust profile: the likelihood-ratio statistic scaled by model / sandwich variance (Royall & Tsou)
    from scipy.optimize import brentq

    def loglik(alpha):
        eta = x + alpha
        return np.sum(y * eta - np.logaddexp(0, eta))

    top, critical = loglik(citl["intercept"]), 3.841458820694124 * robust ** 2 * info
    for side, key in ((-1, "lower"), (1, "upper")):
        far = citl["intercept"] + side * 10 * robust
        root = brentq(lambda a: 2 * (top - loglik(a)) - critical, citl["intercept"], far, xtol=1e-13)
        assert profile["citl"][key] == pytest.approx(root, abs=1e-7)
    if "robust_vcov" in ref:  # sandwich::vcovHC, HC0, without the class factors
        assert robust == pytest.approx(np.sqrt(ref["robust_vcov"]["citl"]["vcovHC_HC0"]["values"][0][0]), rel=1e-2)
    for name in ("intercept", "slope"):
        assert wald[name]["estimate"] == pytest.approx(recal[name], abs=1e-9)
        assert wald[name]["estimate"] == pytest.approx(ref["val_prob"]["stats"][name.title()], abs=1e-7)
        assert wald[name]["se"] == pytest.approx(recal[f"se_{name}"], rel=1e-8)
        assert wald[name]["lower"] == pytest.approx(recal[f"wald_ci_{name}"]["lower"], abs=1e-8)
        assert profile[name]["lower"] == pytest.approx(recal[f"profile_ci_exact_{name}"]["lower"], abs=1e-8)
        assert profile[name]["upper"] == pytest.approx(recal[f"profile_ci_exact_{name}"]["upper"], abs=1e-8)


@pytest.mark.parametrize("case", FITTED)
@pytest.mark.parametrize("knots", [3, 4, 5])
def test_spline_curve_equals_r(case, knots):
    """ICI, E50, E90, Emax of the restricted cubic spline curve, Hmisc's knots, as R's glm on rcspline.eval."""
    ref = CASES[case]["rcs"][str(knots)]
    frame, y, p = _frame(case)
    got = _values(_quiet(frame, y, p, knots=knots))
    for ours, theirs in (("ici", "ICI"), ("e50", "E50"), ("e90", "E90"), ("emax", "Emax")):
        assert got[ours]["estimate"] == pytest.approx(ref[theirs], abs=1e-9), ours


def test_extreme_predictions_left_out_of_the_fits_only():
    """Predictions of exactly 0 or 1: a warning, a note, and the fits of the rows strictly inside (0, 1)."""
    with pytest.warns(ExtremePredictionWarning, match="exactly 0 or 1"):
        full = calibration(CANCER, "malignant", "forest")
    subset = _quiet(CANCER.filter((pl.col("forest") > 0) & (pl.col("forest") < 1)), "malignant", "forest")
    a, b = _values(full), _values(subset)
    for name in ("citl", "slope", "intercept", "ici"):
        assert a[name]["estimate"] == pytest.approx(b[name]["estimate"], abs=1e-12)
        assert "164 rows with a prediction of exactly 0 or 1" in a[name]["note"]
    assert a["brier"]["note"] is None and a["brier"]["estimate"] != b["brier"]["estimate"]


def test_weighted_fits_and_sandwich():
    """Weighted likelihood as R's glm(weights=); the sandwich variance as the rows' own linearisation."""
    ref = CASES["sim/p"]["weighted"]
    result = _quiet(SIM, "y", "p", weights="w")
    got = _values(result, "wald")
    assert got["citl"]["estimate"] == pytest.approx(ref["citl"]["intercept"], abs=1e-10)
    assert got["intercept"]["estimate"] == pytest.approx(ref["recalibration"]["intercept"], abs=1e-9)
    assert got["slope"]["estimate"] == pytest.approx(ref["recalibration"]["slope"], abs=1e-9)
    assert got["brier"]["estimate"] == pytest.approx(ref["brier"], rel=1e-13)
    assert got["oe_ratio"]["estimate"] == pytest.approx(ref["oe"], rel=1e-13)
    assert np.isnan(got["spiegelhalter_z"]["estimate"]) and "squared weights" in got["spiegelhalter_z"]["note"]
    # the oracle: HC0 from the raw rows, times n/(n - 1) within each class (intervals/linearisation.py)
    y, w = SIM["y"].to_numpy().astype(float), SIM["w"].to_numpy()
    x = np.log(SIM["p"].to_numpy() / (1 - SIM["p"].to_numpy()))
    X = np.column_stack([np.ones_like(x), x])
    beta = np.array([got["intercept"]["estimate"], got["slope"]["estimate"]])
    mu = 1 / (1 + np.exp(-X @ beta))
    bread = np.linalg.inv((X * (w * mu * (1 - mu))[:, None]).T @ X)
    units = (X * (w * (y - mu))[:, None]) @ bread
    meat = sum(c.sum() / (c.sum() - 1) * (units[c] ** 2).sum(axis=0) for c in (y == 1, y == 0))
    assert got["intercept"]["se"] == pytest.approx(np.sqrt(meat[0]), rel=1e-9)
    assert got["slope"]["se"] == pytest.approx(np.sqrt(meat[1]), rel=1e-9)
    hc0 = np.array(ref["recalibration"]["vcovHC_HC0"]["values"])
    assert got["slope"]["se"] == pytest.approx(np.sqrt(hc0[1, 1]), rel=1e-2)


def test_cluster_sandwich_equals_vcovcl():
    """Every site holds both classes, so the cluster-robust variance is sandwich::vcovCL's default exactly."""
    ref = CASES["sim/p"]["robust_vcov"]
    got = _values(_quiet(SIM, "y", "p", cluster="site"), "wald")
    assert got["citl"]["se"] == pytest.approx(np.sqrt(ref["citl"]["vcovCL_site_defaults"]["values"][0][0]), rel=1e-9)
    vcov = np.array(ref["recalibration"]["vcovCL_site_defaults"]["values"])
    assert got["intercept"]["se"] == pytest.approx(np.sqrt(vcov[0, 0]), rel=1e-9)
    assert got["slope"]["se"] == pytest.approx(np.sqrt(vcov[1, 1]), rel=1e-9)


def test_per_site_rows_equal_r():
    per_site = CASES["sim/p"]["per_site"]
    frame = _quiet(SIM, "y", "p", by="site").conf_int_polars(method="wald")
    for site, ref in per_site.items():
        rows = {r["estimator"]: r for r in frame.filter(pl.col("site") == site).iter_rows(named=True)}
        assert rows["slope"]["estimate"] == pytest.approx(ref["slope"], abs=1e-9)
        assert rows["intercept"]["se"] == pytest.approx(ref["se_intercept"], rel=1e-8)
        assert rows["brier"]["estimate"] == pytest.approx(ref["brier"], rel=1e-13)
        assert rows["oe_ratio"]["estimate"] == pytest.approx(ref["oe"], rel=1e-13)


def _oracle_rows(p: np.ndarray, y: np.ndarray) -> dict:
    """Brute force from the rows: the fits by scipy's optimiser, the sums by numpy."""
    from scipy.optimize import minimize

    x = np.log(p / (1 - p))

    def nll(beta, offset, design):
        eta = offset + design @ beta
        return np.sum(np.logaddexp(0, eta) - y * eta)

    citl = minimize(nll, [0.0], args=(x, np.ones((x.size, 1))), method="BFGS", options={"gtol": 1e-10}).x[0]
    ab = minimize(nll, [0.0, 1.0], args=(0.0, np.column_stack([np.ones_like(x), x])), method="BFGS",
                  options={"gtol": 1e-10}).x
    return {"citl": citl, "intercept": ab[0], "slope": ab[1], "brier": np.mean((y - p) ** 2),
            "oe_ratio": y.sum() / p.sum()}


def test_groups_against_a_brute_force_oracle_and_alone():
    """Each of several groups as the oracle computes it from its rows, and the same bits alone."""
    rng = np.random.default_rng(7)
    parts = []
    for g, (n, d) in enumerate([(80, 0.6), (400, 1.4), (1500, 1.0)]):
        z = rng.normal(size=n)
        p = 1 / (1 + np.exp(-(-1 + d * z)))
        y = (rng.random(n) < 1 / (1 + np.exp(-(-0.8 + z)))).astype(int)
        parts.append(pl.DataFrame({"g": [f"g{g}"] * n, "y": y, "p": np.round(p, 3)}))
    frame = pl.concat(parts)
    together = _quiet(frame, "y", "p", by="g").to_polars()
    for part in parts:
        name = part["g"][0]
        alone = _quiet(part, "y", "p").to_polars()
        mine = together.filter(pl.col("g") == name)
        assert np.array_equal(mine["estimate"].to_numpy(), alone["estimate"].to_numpy(), equal_nan=True)
        oracle = _oracle_rows(part["p"].to_numpy(), part["y"].to_numpy().astype(float))
        rows = {r["estimator"]: r["estimate"] for r in mine.iter_rows(named=True)}
        for key, value in oracle.items():
            assert rows[key] == pytest.approx(value, abs=1e-6), key


def test_stated_prevalence_reweights_the_controls():
    """A case-control sample: every statistic read with the controls weighted to the population prevalence,
    the fits solving the population's estimating equations (not the sample's intercepts shifted)."""
    from scipy.optimize import minimize

    stated = _quiet(SIM, "y", "p", prevalence=0.05)
    b = _values(stated)
    y, p = SIM["y"].to_numpy().astype(float), SIM["p"].to_numpy()
    weight = np.where(y == 1, 1.0, 119 * 0.95 / (481 * 0.05))
    x = np.log(p / (1 - p))

    def nll(beta, design, offset):
        eta = offset + design @ beta
        return np.sum(weight * (np.logaddexp(0, eta) - y * eta))

    citl = minimize(nll, [0.0], args=(np.ones((x.size, 1)), x), method="BFGS", options={"gtol": 1e-9}).x[0]
    a, slope = minimize(nll, [0.0, 1.0], args=(np.column_stack([np.ones_like(x), x]), 0.0), method="BFGS",
                        options={"gtol": 1e-9}).x
    assert b["citl"]["estimate"] == pytest.approx(citl, abs=1e-6)
    assert b["intercept"]["estimate"] == pytest.approx(a, abs=1e-6)
    assert b["slope"]["estimate"] == pytest.approx(slope, abs=1e-6)
    assert b["oe_ratio"]["estimate"] == pytest.approx(np.sum(weight * y) / np.sum(weight * p), rel=1e-12)
    assert b["brier"]["estimate"] == pytest.approx(np.sum(weight * (y - p) ** 2) / weight.sum(), rel=1e-12)
    assert np.isnan(b["spiegelhalter_z"]["estimate"])
    ci = stated.conf_int_polars()
    assert set(ci["method"]) == {"bootstrap"}
    wald = stated.conf_int_polars(method="wald")
    assert wald["lower"].is_nan().all() and "stratified by class" in wald["note"][0]


def test_bootstrap_resamples_rows_and_is_reproducible():
    result = _quiet(SIM, "y", "p", statistic=["oe_ratio", "citl", "slope"])
    one = result.conf_int_polars(method="bootstrap", n_boot=200, seed=3)
    two = result.conf_int_polars(method="bootstrap", n_boot=200, seed=3)
    assert one.equals(two)
    # the cohort bootstrap lets the number of events vary, so O/E's interval is as wide as its Wald interval
    wald = result.conf_int_polars(method="wald")
    width = lambda f: (f["upper"] - f["lower"]).to_numpy()  # noqa: E731
    assert width(one)[0] == pytest.approx(width(wald)[0], rel=0.25)
    # the same seed gives the same numbers whatever the frame type
    three = _quiet(SIM.to_pandas(), "y", "p", statistic=["oe_ratio", "citl", "slope"]).conf_int(
        method="bootstrap", n_boot=200, seed=3)
    assert np.array_equal(three["lower"].to_numpy(), one["lower"].to_numpy())


def test_cohort_bootstrap_counts():
    """The unstratified replicates keep the group's size and let its number of events vary."""
    from aucpr_stats.resample.counts import cohort_chunks
    from aucpr_stats.resample.streams import Streams
    from aucpr_stats.ties import TieTable

    ties = TieTable([0.9, 0.5, 0.2], [3, 2, 1], [1, 4, 9], [0, 3])
    chunks = list(cohort_chunks(ties, 400, Streams.for_segments(1, 1, "bootstrap")))
    table = chunks[0].table
    assert np.all(table.n_pos + table.n_neg == 20)
    assert np.std(table.n_pos) == pytest.approx(np.sqrt(20 * 0.3 * 0.7), rel=0.15)
    share = table.segment_sum(table.pos) .sum() / (20 * len(table.n_pos))
    assert share == pytest.approx(0.3, abs=0.02)


# ------------------------------------------------------------------ bad input and degenerate groups
def test_scores_outside_zero_one_are_refused_with_a_hint():
    frame = SIM.with_columns(logit=(pl.col("p") / (1 - pl.col("p"))).log())
    with pytest.raises(InputError, match=r"probabilities in \[0, 1\].*'logit'.*600 rows outside.*inverse|logit or"):
        calibration(frame, "y", "logit")
    with pytest.raises(InputError, match="percentage"):
        calibration(SIM.with_columns(pct=pl.col("p") * 100), "y", "pct")


def test_degenerate_groups_get_a_row_a_note_and_a_warning():
    frame = pl.DataFrame({"g": ["none"] * 4 + ["flat"] * 6 + ["split"] * 6,
                          "y": [0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0],
                          "p": [0.1, 0.2, 0.3, 0.4] + [0.3] * 6 + [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]})
    with pytest.warns(DegenerateGroupWarning):
        result = calibration(frame, "y", "p", by="g")
    rows = {(r["g"], r["estimator"]): r for r in result.to_polars().iter_rows(named=True)}
    assert np.isnan(rows[("none", "citl")]["estimate"]) and "no positives" in rows[("none", "citl")]["note"]
    assert rows[("flat", "citl")]["estimate"] == pytest.approx(np.log(0.5 / 0.5) - np.log(0.3 / 0.7))
    assert np.isnan(rows[("flat", "slope")]["estimate"]) and "constant prediction" in rows[("flat", "slope")]["note"]
    assert np.isnan(rows[("split", "slope")]["estimate"]) and "separated" in rows[("split", "slope")]["note"]
    assert rows[("split", "brier")]["estimate"] == pytest.approx(np.mean([0.01, 0.04, 0.09, 0.09, 0.04, 0.01]))


@pytest.mark.parametrize("knots", [2, 8, 4.5, True])
def test_knots_checked(knots):
    with pytest.raises(InputError, match="knots"):
        calibration(SIM, "y", "p", knots=knots)


def test_unknown_statistic_named():
    with pytest.raises(InputError, match="statistic"):
        calibration(SIM, "y", "p", statistic="calibration_slope")


def test_formula_and_duckdb_give_the_same_numbers():
    duckdb = pytest.importorskip("duckdb")
    base = _quiet(SIM, "y", "p", by="site").to_polars()
    formula = _quiet("y ~ p | site", data=SIM).to_polars()
    assert formula.equals(base)
    con = duckdb.connect()
    con.register("sim", SIM.to_arrow())
    engine = _quiet(con.table("sim"), "y", "p", by="site").to_polars().sort("site", maintain_order=True)
    mine = base.sort("site", maintain_order=True)
    np.testing.assert_allclose(engine["estimate"].to_numpy(), mine["estimate"].to_numpy(), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 99), st.booleans()), min_size=8, max_size=60), st.integers(2, 4))
def test_duplicating_every_row_changes_nothing(rows, copies):
    """Every statistic is a function of the shares of the tie table: copying each row k times changes none."""
    p = np.array([r[0] / 100 for r in rows])
    y = np.array([int(r[1]) for r in rows])
    if y.min() == y.max():
        return
    once = _quiet(pl.DataFrame({"y": y, "p": p}), "y", "p", statistic=["oe_ratio", "citl", "brier", "slope"])
    many = _quiet(pl.DataFrame({"y": np.tile(y, copies), "p": np.tile(p, copies)}), "y", "p",
                  statistic=["oe_ratio", "citl", "brier", "slope"])
    np.testing.assert_allclose(many.estimates, once.estimates, rtol=1e-8, atol=1e-10)


def test_heterogeneity_is_cochrans_q_on_the_sites_r_values():
    """The Wald heterogeneity test of the slope across sites: Cochran's Q from R's per-site fits."""
    from scipy.stats import chi2

    per_site = CASES["sim/p"]["per_site"]
    theta = np.array([v["slope"] for v in per_site.values()])
    weight = 1 / np.array([v["se_slope"] for v in per_site.values()]) ** 2
    pooled = np.sum(weight * theta) / weight.sum()
    q = np.sum(weight * (theta - pooled) ** 2)
    test = _quiet(SIM, "y", "p", by="site", statistic="slope").heterogeneity().to_polars().row(0, named=True)
    assert test["statistic"] == pytest.approx(q, rel=1e-7)
    assert test["pooled"] == pytest.approx(pooled, rel=1e-8)
    assert test["p_value"] == pytest.approx(chi2.sf(q, len(theta) - 1), rel=1e-6)


def test_command_line(tmp_path, capsys):
    from aucpr_stats.cli import main

    path = tmp_path / "sim.csv"
    SIM.write_csv(path)
    assert main(["calibration", str(path), "--outcome", "y", "--score", "p", "--by", "site", "--statistic", "citl",
                 "slope", "--raw", "--format", "csv"]) == 0
    out = pl.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    expected = _quiet(SIM, "y", "p", by="site", statistic=["citl", "slope"]).conf_int_polars()
    np.testing.assert_allclose(out["lower"].to_numpy(), expected["lower"].to_numpy(), rtol=1e-12)
    assert main(["calibration", str(path), "--outcome", "y", "--score", "site"]) == 2
    bad = tmp_path / "logit.csv"
    SIM.with_columns(z=(pl.col("p") / (1 - pl.col("p"))).log()).write_csv(bad)
    assert main(["calibration", str(bad), "--outcome", "y", "--score", "z"]) == 2
    assert "logit or linear predictor" in capsys.readouterr().err


def _rcs_design(x: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """Harrell's restricted cubic spline design written out from the formula (Hmisc's norm=2)."""
    t, k = knots, len(knots)
    cols = [np.ones_like(x), x]
    for j in range(k - 2):
        term = (np.maximum(x - t[j], 0) ** 3
                - np.maximum(x - t[k - 2], 0) ** 3 * (t[k - 1] - t[j]) / (t[k - 1] - t[k - 2])
                + np.maximum(x - t[k - 1], 0) ** 3 * (t[k - 2] - t[j]) / (t[k - 1] - t[k - 2]))
        cols.append(term / (t[k - 1] - t[0]) ** 2)
    return np.column_stack(cols)


def test_curve_and_bands_against_statsmodels():
    """The curve and its pointwise band as statsmodels' GLM prediction on the spline design with R's knots;
    the simultaneous band with Scheffe's critical value."""
    import statsmodels.api as sm
    from scipy.stats import chi2, norm

    ref = CASES["sim/p"]["rcs"]["4"]
    curve = _quiet(SIM, "y", "p").curve(n_points=41).to_polars()
    risk = curve["risk"].to_numpy()
    x = np.log(SIM["p"].to_numpy() / (1 - SIM["p"].to_numpy()))
    knots = np.array(ref["knots"])
    fit = sm.GLM(SIM["y"].to_numpy(), _rcs_design(x, knots), family=sm.families.Binomial()).fit(tol=1e-13)
    design = _rcs_design(np.log(risk / (1 - risk)), knots)
    eta = design @ fit.params
    se = np.sqrt(np.einsum("gk,kj,gj->g", design, fit.cov_params(), design))
    expit = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    np.testing.assert_allclose(curve["calibrated"].to_numpy(), expit(eta), rtol=1e-7)
    np.testing.assert_allclose(curve["lower"].to_numpy(), expit(eta - norm.ppf(0.975) * se), rtol=1e-6)
    c = np.sqrt(chi2.ppf(0.95, 4))
    np.testing.assert_allclose(curve["upper_simultaneous"].to_numpy(), expit(eta + c * se), rtol=1e-6)
    assert risk.min() == SIM["p"].min() and risk.max() == SIM["p"].max()
    # R's fit read at fixed risks (the grid holds none of them exactly: through the same design)
    fitted_at = {float(k): v for k, v in ref["fitted_at"].items()}
    at = np.array(list(fitted_at))
    np.testing.assert_allclose(expit(_rcs_design(np.log(at / (1 - at)), knots) @ fit.params),
                               list(fitted_at.values()), rtol=1e-7)


def test_curve_plot_has_a_panel_and_a_histogram_per_group():
    import matplotlib

    matplotlib.use("Agg")
    curve = _quiet(SIM, "y", "p", by="site", statistic="ici").curve()
    fig = curve.plot(title="sites")
    assert len(fig.axes) == 2 * 6
    assert curve.to_polars().height == 6 * 101
    weighted = _quiet(SIM, "y", "p", weights="w", statistic="ici").curve().to_polars()
    assert weighted["lower"].is_nan().all() and "weights" in weighted["note"][0]


def test_paired_comparison_against_row_level_oracle():
    """compare(metric="calibration"): the difference's variance is the rows' paired linearisation, from scratch."""
    from aucpr_stats import compare

    rng = np.random.default_rng(11)
    n = 800
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(-1 + z)))).astype(int)
    a = 1 / (1 + np.exp(-(-1.2 + 1.3 * z + rng.normal(scale=0.3, size=n))))
    b = 1 / (1 + np.exp(-(-0.7 + 0.8 * z)))
    frame = pl.DataFrame({"y": y, "a": a, "b": b})
    result = compare(frame, "y", ["a", "b"], metric="calibration", estimator=["citl", "slope", "brier"])
    rows = {r["estimator"]: r for r in result.to_polars().iter_rows(named=True)}

    def terms(p):
        x = np.log(p / (1 - p))
        out = {}
        mu = 1 / (1 + np.exp(-(x + _oracle_rows(p, y.astype(float))["citl"])))
        out["citl"] = (y - mu) / np.sum(mu * (1 - mu))
        fit = _oracle_rows(p, y.astype(float))
        X = np.column_stack([np.ones(n), x])
        mu = 1 / (1 + np.exp(-(X @ [fit["intercept"], fit["slope"]])))
        out["slope"] = ((X * (y - mu)[:, None]) @ np.linalg.inv((X * (mu * (1 - mu))[:, None]).T @ X))[:, 1]
        brier = np.mean((y - p) ** 2)
        out["brier"] = ((y - p) ** 2 - brier) / n
        return out

    ta, tb = terms(a), terms(b)
    for name in ("citl", "slope", "brier"):
        se = np.sqrt(n / (n - 1) * np.sum((ta[name] - tb[name]) ** 2))
        assert rows[name]["se"] == pytest.approx(se, rel=1e-4), name
    assert result.method == "wald"
    with pytest.raises(InputError, match="does not take"):
        compare(frame, "y", ["a", "b"], metric="calibration", cluster="y")


def test_forest_plot_draws_a_panel_per_statistic_with_its_perfect_value():
    import matplotlib

    matplotlib.use("Agg")
    from aucpr_stats import auroc
    from aucpr_stats.plot import forest_plot

    area = auroc(SIM, "y", "p", by="site")
    calib = _quiet(SIM, "y", "p", by="site", statistic=["oe_ratio", "slope"])
    axes = forest_plot([area, calib])
    assert [a.get_xlabel().split(" (")[0] for a in axes] == ["AUROC", "Observed/expected", "Calibration slope"]
    lines = [line.get_xdata()[0] for line in axes[2].get_lines() if line.get_linestyle() == "--"]
    assert lines == [1.0]
    # the slope panel's rows are the sites' slopes, in order
    slopes = calib.to_polars().filter(pl.col("estimator") == "slope")["estimate"].to_numpy()
    marks = [line for line in axes[2].get_lines() if line.get_marker() == "s"][0]
    np.testing.assert_allclose(np.sort(marks.get_xdata()), np.sort(slopes))


def test_weighted_bootstrap_resamples_rows_whatever_their_class():
    """Unit weights give the unweighted cohort bootstrap draw for draw; real weights agree with the sandwich."""
    frame = SIM.with_columns(one=pl.lit(1.0))
    names = ["oe_ratio", "citl", "slope", "brier"]
    plain = _quiet(frame, "y", "p", statistic=names).conf_int_polars(method="bootstrap", n_boot=300, seed=9)
    unit = _quiet(frame, "y", "p", statistic=names, weights="one").conf_int_polars(method="bootstrap", n_boot=300,
                                                                                  seed=9)
    np.testing.assert_allclose(unit["lower"].to_numpy(), plain["lower"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(unit["se"].to_numpy(), plain["se"].to_numpy(), rtol=1e-12)
    weighted = _quiet(SIM, "y", "p", statistic=names, weights="w")
    boot = weighted.conf_int_polars(method="bootstrap", n_boot=2000, seed=4)["se"].to_numpy()
    wald = weighted.conf_int_polars(method="wald")["se"].to_numpy()
    np.testing.assert_allclose(boot, wald, rtol=0.12)
