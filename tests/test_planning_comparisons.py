"""Planning a comparison of two AUROCs (issue 38, must-hold 4): pROC's power.roc.test(roc1, roc2) and its
binormal form, the smallest detectable AUC, and a simulation of a planned study reaching its power."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from aucpr_stats import InputError, compare, detectable_auc, power, sample_size

REFERENCE = Path(__file__).parent / "reference"
PROC = json.loads((REFERENCE / "proc_power_two.json").read_text())
ALTERNATIVE = {"two.sided": "two_sided", "one.sided": "one_sided"}


@pytest.fixture(scope="module")
def asah() -> pl.DataFrame:
    frame = pl.read_csv(REFERENCE / "proc_power_asah.csv")
    return frame.with_columns(wfns=pl.col("wfns").cast(pl.Float64))


def _pilot(asah, first, second):
    return compare(asah, "outcome", [first, second], metric="auroc", positive="Poor")


@pytest.mark.parametrize("case", [c for c in PROC["pilot"] if c["kind"] == "sample_size"],
                         ids=lambda c: f"{c['first']}-{c['second']}-{c['power']}-{c['alternative']}")
def test_sample_size_from_a_pilot_equals_proc(asah, case):
    plan = sample_size("auroc", pilot=_pilot(asah, case["first"], case["second"]), power=case["power"],
                       alternative=ALTERNATIVE[case["alternative"]], null_variance="first")
    assert plan.n_pos_exact == pytest.approx(case["ncases"], rel=1e-10)
    assert plan.n_neg_exact == pytest.approx(case["ncontrols"], rel=1e-10)
    assert plan.n_pos == math.ceil(case["ncases"]) and plan.power >= case["power"]


@pytest.mark.parametrize("case", [c for c in PROC["pilot"] if c["kind"] == "power"],
                         ids=lambda c: f"{c['first']}-{c['second']}")
def test_power_of_the_pilot_equals_proc(asah, case):
    plan = power("auroc", pilot=_pilot(asah, case["first"], case["second"]), null_variance="first")
    assert plan.power == pytest.approx(case["power"], rel=1e-10)
    assert (plan.n_pos, plan.n_neg) == (case["ncases"], case["ncontrols"])


@pytest.mark.parametrize("case", PROC["binormal"], ids=lambda c: f"{c['auc1']}-{c['auc2']}-{c['alternative']}")
def test_binormal_plan_equals_proc(case):
    common = dict(auc=(case["auc1"], case["auc2"]), correlation=(case["rn"], case["ra"]),
                  slope=(case["b1"], case["b2"]), alternative=ALTERNATIVE[case["alternative"]], null_variance="first")
    plan = sample_size("auroc", power=0.9, ratio=case["kappa"], **common)
    assert plan.n_pos_exact == pytest.approx(case["ncases"], rel=1e-10)
    assert plan.n_neg_exact == pytest.approx(case["ncontrols"], rel=1e-10)
    at_60 = power("auroc", n_pos=60, n_neg=60 * case["kappa"], **common)
    assert at_60.power == pytest.approx(case["power_at_60"], rel=1e-10)


def test_smallest_detectable_auc_is_where_the_power_reaches_the_target():
    plan = detectable_auc(50, 70, power=0.8)
    auc = plan.detectable_auc
    assert power("auroc", auc=auc, n_pos=50, n_neg=70).power == pytest.approx(0.8, abs=1e-9)
    assert power("auroc", auc=auc - 1e-4, n_pos=50, n_neg=70).power < 0.8
    two = detectable_auc(120, 120, power=0.9, versus=0.75, correlation=0.6)
    check = power("auroc", auc=(0.75, two.detectable_auc), correlation=0.6, n_pos=120, n_neg=120)
    assert check.power == pytest.approx(0.9, abs=1e-9)
    assert math.isnan(detectable_auc(3, 3, power=0.99, versus=0.9, correlation=0.0).detectable_auc)


def _delong_power_by_simulation(plan, auc1, auc2, rho, n_sim, seed):
    """Simulate the planned study (binormal, equal variances, correlation rho in both classes) and test by DeLong."""
    gen = np.random.default_rng(seed)
    m, n = int(plan.n_pos), int(plan.n_neg)
    mu1, mu2 = stats.norm.ppf(auc1) * math.sqrt(2), stats.norm.ppf(auc2) * math.sqrt(2)
    cov = [[1.0, rho], [rho, 1.0]]
    rejected = 0
    for _ in range(n_sim):
        neg = gen.multivariate_normal([0, 0], cov, size=n)
        pos = gen.multivariate_normal([mu1, mu2], cov, size=m)
        x, y = pos.T, neg.T
        # DeLong with placement values (no ties in continuous data)
        v10 = np.stack([(x[r][:, None] > y[r][None, :]).mean(axis=1) for r in range(2)])
        v01 = np.stack([(x[r][:, None] > y[r][None, :]).mean(axis=0) for r in range(2)])
        theta = v10.mean(axis=1)
        s = np.cov(v10) / m + np.cov(v01) / n
        z = (theta[0] - theta[1]) / math.sqrt(s[0, 0] + s[1, 1] - 2 * s[0, 1])
        rejected += abs(z) > stats.norm.ppf(0.975)
    return rejected / n_sim


def _pilot_of(auc1, auc2, rho, seed, n_pilot=4000):
    gen = np.random.default_rng(seed)
    mu1, mu2 = stats.norm.ppf(auc1) * math.sqrt(2), stats.norm.ppf(auc2) * math.sqrt(2)
    y = gen.random(n_pilot) < 0.4
    latent = gen.multivariate_normal([0, 0], [[1.0, rho], [rho, 1.0]], size=n_pilot)
    frame = pl.DataFrame({"y": y, "a": latent[:, 0] + mu1 * y, "b": latent[:, 1] + mu2 * y})
    return compare(frame, "y", ["a", "b"], metric="auroc")


def test_a_simulated_planned_study_reaches_the_claimed_power():
    # the default plan from a pilot's DeLong variances; the planned study analysed by DeLong's test as run
    auc1, auc2, rho = 0.85, 0.78, 0.5
    pilot = _pilot_of(auc1, auc2, rho, seed=7)
    plan = sample_size("auroc", pilot=pilot, power=0.8)
    n_sim = 600
    # the plan assumes the pilot's AUCs are the truth: the planned study is simulated at them
    auc1, auc2 = plan.auc1, plan.auc2
    observed = _delong_power_by_simulation(plan, auc1, auc2, rho, n_sim, seed=38)
    mc_error = math.sqrt(plan.power * (1 - plan.power) / n_sim)
    assert abs(observed - plan.power) < 3.5 * mc_error + 0.02  # an asymptotic formula: 2 points of slack
    # pROC's null variance (the first curve's, here the better one) claims the same power at fewer positives
    proc = sample_size("auroc", pilot=pilot, power=0.8, null_variance="first")
    assert proc.n_pos < plan.n_pos
    short = _delong_power_by_simulation(proc, auc1, auc2, rho, n_sim, seed=39)
    assert short < proc.power - 3.5 * math.sqrt(proc.power * (1 - proc.power) / n_sim)


def test_the_binormal_plan_is_conservative_for_a_delong_analysis():
    # Obuchowski & McClish's variances are those of the binormal estimate; Mann-Whitney AUCs of binormal
    # scores vary less, so a DeLong-analysed study has more power than planned (docs/planning.md says so)
    plan = sample_size("auroc", auc=(0.85, 0.75), correlation=0.5, power=0.8, ratio=1.5)
    observed = _delong_power_by_simulation(plan, 0.85, 0.75, 0.5, 400, seed=38)
    assert observed > plan.power + 0.03


def test_bad_input():
    with pytest.raises(InputError, match="`correlation` is required"):
        sample_size("auroc", auc=(0.8, 0.7))
    with pytest.raises(InputError, match="the two AUCs are equal"):
        sample_size("auroc", auc=(0.8, 0.8), correlation=0.3)
    with pytest.raises(InputError, match="`auc` must be one number or two"):
        sample_size("auroc", auc=(0.8, 0.7, 0.6), correlation=0.3)
    with pytest.raises(InputError, match="`pilot` must be the result of compare"):
        sample_size("auroc", pilot="pilot.csv")
    frame = pl.DataFrame({"y": [0, 1] * 30, "a": np.arange(60.0), "b": np.arange(60.0)[::-1], "c": np.ones(60)})
    with pytest.raises(InputError, match="paired DeLong comparison of AUROCs"):
        sample_size("auroc", pilot=compare(frame, "y", ["a", "b"], n_boot=50, rng=1))
    with pytest.raises(InputError, match="one comparison of two scores"):
        sample_size("auroc", pilot=compare(frame, "y", ["a", "b", "c"], metric="auroc"))
    with pytest.raises(InputError, match="drop `auc`"):
        sample_size("auroc", pilot=compare(frame, "y", ["a", "b"], metric="auroc"), auc=(0.8, 0.7))
    with pytest.raises(InputError, match="correlation"):
        detectable_auc(50, 50, correlation=1.5)


# ------------------------------------------------------------------ two AUCPRs, by simulation
def test_aucpr_comparison_power_agrees_with_an_independent_simulation():
    from aucpr_stats.simulate import Binormal

    first, second = Binormal(mu=1.8), Binormal(mu=1.0)
    plan = power("aucpr", scenario=(first, second), correlation=0.4, n_pos=40, n_neg=160, n_sim=150,
                 method_options={"n_boot": 200}, rng=3)
    gen = np.random.default_rng(99)
    rejected = 0
    for k in range(150):  # the same design drawn study by study, each tested on its own
        y = np.r_[np.ones(40), np.zeros(160)].astype(np.int64)
        z = gen.multivariate_normal([0, 0], [[1.0, 0.4], [0.4, 1.0]], size=200)
        frame = pl.DataFrame({"y": y, "a": z[:, 0] + 1.8 * y, "b": z[:, 1] + 1.0 * y})
        rejected += compare(frame, "y", ["a", "b"], n_boot=200, rng=k).p_value < 0.05
    independent = rejected / 150
    se = math.sqrt(2 * plan.power * (1 - plan.power) / 150) + 1e-9
    assert abs(plan.power - independent) < 4 * se + 0.02
    assert plan.true_aucpr1 == pytest.approx(first.true_aucpr(0.2)) and plan.difference > 0


def test_aucpr_comparison_sample_size_reaches_its_power_and_is_reproducible():
    common = dict(scenario=("binormal@0.9", "binormal@0.8"), correlation=0.5, prevalence=0.2, power=0.8,
                  n_sim=100, method_options={"n_boot": 100}, rng=7)
    plan = sample_size("aucpr", **common)
    assert plan.power >= 0.8 and plan.n_pos >= 20
    search = plan.search
    assert (search.filter(pl.col("n_pos") < plan.n_pos)["power"] < 0.8).all()
    assert sample_size("aucpr", **common).n_pos == plan.n_pos


def test_aucpr_comparison_bad_input():
    with pytest.raises(InputError, match="two binormal scenarios"):
        power("aucpr", scenario=("bibeta", "binormal"), correlation=0.5, n_pos=40, n_neg=100)
    with pytest.raises(InputError, match="`correlation` is required"):
        power("aucpr", scenario=("binormal@0.9", "binormal@0.8"), n_pos=40, n_neg=100)
    with pytest.raises(InputError, match="the same"):
        power("aucpr", scenario=("binormal@0.9", "binormal@0.9"), correlation=0.2, n_pos=40, n_neg=100)
    with pytest.raises(InputError, match="`prevalence` is required"):
        sample_size("aucpr", scenario=("binormal@0.9", "binormal@0.8"), correlation=0.2)
