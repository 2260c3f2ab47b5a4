"""sample_size() and power(): pROC's power.roc.test numbers (kept references) and the simulated AUCPR plan."""

from __future__ import annotations

import json
from pathlib import Path

import warnings

import numpy as np
import pytest

from aucpr_stats import InputError, power, sample_size
from aucpr_stats.planning.obuchowski import obuchowski_variance

ROOT = Path(__file__).resolve().parents[1]
POWER = json.loads((ROOT / "tests" / "reference" / "proc_reference.json").read_text())["power"]


def _alternative(args):
    return "one_sided" if args.get("alternative") == "one.sided" else "two_sided"


@pytest.mark.parametrize("case", [c for c in POWER if "power" in c["args"]], ids=str)
def test_sample_size_equals_proc(case):
    args = case["args"]
    plan = sample_size("auroc", auc=args["auc"], power=args["power"], alpha=args["sig.level"], ratio=args["kappa"],
                       alternative=_alternative(args))
    assert plan.n_pos_exact == pytest.approx(case["ncases"], rel=1e-9, abs=1e-6)
    assert plan.n_neg_exact == pytest.approx(case["ncontrols"], rel=1e-9, abs=1e-6)
    # whole numbers to recruit: rounded up, so the power is at least the target
    assert plan.n_pos == int(np.ceil(case["ncases"] - 1e-9))
    assert plan.n_neg >= case["ncontrols"] - 1e-9
    assert plan.power >= args["power"] - 1e-12


@pytest.mark.parametrize("case", [c for c in POWER if "ncases" in c["args"]], ids=str)
def test_power_equals_proc(case):
    args = case["args"]
    result = power("auroc", auc=args["auc"], n_pos=args["ncases"], n_neg=args["ncontrols"], alpha=args["sig.level"],
                   alternative=_alternative(args))
    assert result.power == pytest.approx(case["power"], abs=1e-6)


def test_variance_at_one_half_is_procs_null_variance():
    # pROC writes V0 = 0.0792 (1 + 1/kappa): Obuchowski's variance at AUC = 0.5
    for kappa in (0.5, 1.0, 3.0):
        assert obuchowski_variance(0.5, kappa) == pytest.approx(0.0792 * (1 + 1 / kappa), rel=1e-12)


def test_power_at_the_planned_size_is_the_target():
    plan = sample_size("auroc", auc=0.72, power=0.85, alpha=0.05, ratio=3)
    again = power("auroc", auc=0.72, n_pos=plan.n_pos_exact, n_neg=plan.n_neg_exact, alpha=0.05)
    assert again.power == pytest.approx(0.85, abs=1e-12)


def test_another_null_value_needs_more_cases_the_closer_it_is():
    far = sample_size("auroc", auc=0.85, auc0=0.5).n_pos_exact
    near = sample_size("auroc", auc=0.85, auc0=0.75).n_pos_exact
    assert near > far


@pytest.mark.parametrize("kwargs,text", [
    ({"metric": "auroc", "auc": None}, "`auc` is required"),
    ({"metric": "auroc", "auc": 0.5}, "must differ"),
    ({"metric": "auroc", "auc": 1.2}, "`auc`"),
    ({"metric": "auroc", "auc": 0.8, "power": 1.0}, "`power`"),
    ({"metric": "auroc", "auc": 0.8, "ratio": -1}, "`ratio`"),
    ({"metric": "auroc", "auc": 0.8, "alternative": "less"}, "`alternative`"),
    ({"metric": "aucpr", "prevalence": 0.1}, "one target"),
    ({"metric": "aucpr", "half_width": 0.05}, "`prevalence` is required"),
    ({"metric": "aucpr", "prevalence": 0.1, "half_width": 0.05, "method": "delong"}, "`method`"),
])
def test_bad_arguments_are_named(kwargs, text):
    with pytest.raises(InputError) as info:
        sample_size(**kwargs)
    assert text in str(info.value)


def test_power_needs_counts():
    with pytest.raises(InputError, match="`n_pos` and `n_neg`"):
        power("auroc", auc=0.8)
    with pytest.raises(InputError, match="`n_pos` and `n_neg`"):
        power(aucpr=0.2)


def test_aucpr_half_width_plan_meets_its_target_within_monte_carlo_error():
    plan = sample_size("aucpr", prevalence=0.1, half_width=0.08, scenario="binormal", n_sim=100, seed=3)
    assert abs(plan.mean_half_width - 0.08) < 0.08 * 0.06 + 3 * plan.mean_half_width_se
    assert plan.n_total == plan.n_pos + plan.n_neg
    assert plan.n_neg == round(plan.n_pos * 9)
    assert plan.search["chosen"].to_list()[-1] and plan.search.height >= 5
    # the fitted law: half-width ~ c / sqrt(n_pos)
    assert plan.fitted_c / np.sqrt(plan.n_pos) == pytest.approx(0.08, rel=0.1)
    assert "Simulated sizes" in plan.summary()


def test_aucpr_plan_is_reproducible_with_a_seed():
    a = sample_size("aucpr", prevalence=0.2, half_width=0.1, n_sim=40, seed=7)
    b = sample_size("aucpr", prevalence=0.2, half_width=0.1, n_sim=40, seed=7)
    assert a.search.equals(b.search)


def test_aucpr_power_plan_reaches_the_power():
    plan = sample_size("aucpr", prevalence=0.1, aucpr=0.2, power=0.8, n_sim=200, seed=1)
    assert plan.power + 2 * plan.power_se >= 0.8
    assert plan.true_aucpr == pytest.approx(0.2928, abs=1e-4)


def test_a_planned_size_below_the_analysis_minimum_says_so():
    from aucpr_stats.exceptions import SmallSampleWarning
    from aucpr_stats.intervals import INTERVAL_METHODS

    minimum = INTERVAL_METHODS["auroc"]["delong"].min_positives
    with pytest.warns(SmallSampleWarning, match="below 50 positives"):
        small = sample_size("auroc", auc=0.8, power=0.9, alpha=0.05, ratio=2)
    assert small.n_pos < minimum and small.interval == "delong"
    assert f"plan at least {minimum:g} positives" in small.note
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        large = sample_size("auroc", auc=0.6, power=0.9, alpha=0.05, ratio=2)
    assert large.n_pos >= minimum and large.note is None
