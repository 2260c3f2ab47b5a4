"""Rubin's rules, D1 and D2 against mice 3.15 / mitml 0.4-4 (tests/reference/rubin_reference.R) and psfmi's vignette."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aucpr_stats.combine.rubin import d1_test, d2_test, rubin

HERE = Path(__file__).parent / "reference"
REFERENCE = json.loads((HERE / "rubin_reference.json").read_text())
PSFMI = json.loads((HERE / "psfmi_pool_auc_vignette.json").read_text())


@pytest.mark.parametrize("case", REFERENCE["pool_scalar"], ids=lambda c: c["name"])
def test_scalar_pooling_equals_mice_and_mitml(case):
    q, u = np.array(case["Q"])[:, None], np.array(case["U"])[:, None]
    complete = np.inf if case["n"] in (None, "Inf") else case["n"] - case["k"]
    out = {k: float(v[0]) for k, v in rubin(q, u, complete).items()}
    ref, mitml = case["pool.scalar"], case["mitml.testEstimates"]
    assert out["estimate"] == pytest.approx(ref["qbar"], rel=1e-14)
    assert out["within"] == pytest.approx(ref["ubar"], rel=1e-14)
    assert out["between"] == pytest.approx(ref["b"], rel=1e-13, abs=1e-300)
    assert out["total"] == pytest.approx(ref["t"], rel=1e-14)
    assert out["riv"] == pytest.approx(ref["r"], rel=1e-13, abs=1e-300)
    assert out["lambda_"] == pytest.approx(ref["lambda"], rel=1e-13, abs=1e-300)
    # mitml's Barnard-Rubin degrees of freedom (mice floors lambda at 1e-4: the same unless B is near 0)
    assert out["df"] == pytest.approx(mitml["df"], rel=1e-12)
    assert out["fmi"] == pytest.approx(mitml["fmi"], rel=1e-12, abs=1e-15)
    if out["lambda_"] > 1e-4:
        assert out["df"] == pytest.approx(ref["df"], rel=1e-12)
        assert out["fmi"] == pytest.approx(ref["fmi"], rel=1e-12)
    assert np.sqrt(out["total"]) == pytest.approx(mitml["se"], rel=1e-14)


def test_the_psfmi_vignette_pooled_auc():
    inputs = PSFMI["inputs"]
    auc, se = np.array(inputs["auc"]), np.array(inputs["auc_se"])
    theta = np.log(auc / (1 - auc))
    out = rubin(theta[:, None], (se / (auc * (1 - auc)))[:, None] ** 2)  # Rubin's 1987 df, as pool_auc
    expit = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    printed = PSFMI["printed"]
    assert round(float(expit(out["estimate"][0])), 4) == printed["auc"]
    assert round(float(expit(out["lower"][0])), 4) == printed["ci_lb"]
    assert round(float(expit(out["upper"][0])), 4) == printed["ci_ub"]
    assert float(out["df"][0]) == pytest.approx(PSFMI["recomputed"]["df_rubin1987"], rel=1e-13)


@pytest.mark.parametrize("case", [c for c in REFERENCE["D1"] if c["df.com"] is None], ids=lambda c: c["name"])
def test_d1_equals_mitml(case):
    out = d1_test(np.array(case["Qhat"]), np.array(case["Uhat"]))
    ref = case["D1"]
    assert out["statistic"] == pytest.approx(ref["F"], rel=1e-12)
    assert out["df1"] == ref["df1"]
    assert out["df2"] == pytest.approx(ref["df2"], rel=1e-12)
    assert out["p_value"] == pytest.approx(ref["p"], rel=1e-10)
    assert out["riv"] == pytest.approx(ref["r"], rel=1e-12)


@pytest.mark.parametrize("case", REFERENCE["D2"], ids=lambda c: c["name"])
def test_d2_equals_mitml(case):
    out = d2_test(np.array(case["dk"]), case["df"])
    ref = case["D2"]
    assert out["statistic"] == pytest.approx(ref["D"], rel=1e-12)
    assert out["df2"] == pytest.approx(ref["df2"], rel=1e-12)
    assert out["p_value"] == pytest.approx(ref["p"], rel=1e-10, abs=1e-15)
    assert out["riv"] == pytest.approx(ref["r"], rel=1e-12)


def test_d2_of_the_imputations_wald_statistics_equals_mitml():
    case = REFERENCE["D1"][0]
    out = d2_test(np.array(case["wald_chisq"]), case["p"])
    assert out["statistic"] == pytest.approx(case["D2_of_wald"]["F"], rel=1e-12)
    assert out["p_value"] == pytest.approx(case["D2_of_wald"]["p"], rel=1e-10)


def test_one_imputation_has_no_between_variance():
    out = rubin(np.array([[1.0]]), np.array([[0.1]]))
    assert np.isnan(out["between"][0])
