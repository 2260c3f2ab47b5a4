"""Tutorial 06: would using the model do more good than harm? Discrimination, calibration and net benefit.

The third column of a prediction-model paper's performance table
(TRIPOD+AI item 12e) is clinical utility: net benefit at the risk thresholds
at which a decision would be taken, and the decision curve. This script,
on data nobody here prepared (statsmodels' ``fair`` data set: 6,366 women
surveyed by Redbook in 1974, the outcome any extramarital affair, standing
in for a clinical outcome), as a reader of a prediction-model paper would need it:

1. fits two logistic models on a development half (a full one, and a short
   one with two predictors) and predicts the validation half;
2. reports, per age group and overall, discrimination (AUROC), calibration
   (calibration-in-the-large, slope) and net benefit at 20%, 30% and 40%,
   each with its interval, in one publication table;
3. draws the decision curves of both models per age group with their
   pointwise bands, beside "treat all" and "treat none";
4. compares the two models' net benefit on the same women at every
   threshold from 20% to 40%, with a simultaneous band, so that "the full
   model beats the short one across 20-40%" is one statement;
5. tests whether net benefit at 30% differs between age groups, and shows
   the opt-out policy and the standardised net benefit.

Run ``python tutorials/06_net_benefit.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import statsmodels.api as sm  # noqa: E402

from aucpr_stats import auroc, calibration, compare, net_benefit  # noqa: E402

OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
warnings.simplefilter("ignore")  # small-sample notes are in the frames' `note` column

# ---------------------------------------------------------------- 1. two models, a development and a validation half
fair = sm.datasets.fair.load_pandas().data
fair["affair"] = (fair["affairs"] > 0).astype(int)
fair["age_group"] = np.where(fair["age"] < 27, "17-26", np.where(fair["age"] < 37, "27-36", "37+"))
rng = np.random.default_rng(2026)
develop = rng.random(len(fair)) < 0.5
y = fair["affair"].to_numpy()


def fitted(columns: list[str]) -> np.ndarray:
    """A logistic model on the development half; its predicted risks for everybody."""
    X = sm.add_constant(fair[columns].to_numpy(dtype=float))
    return sm.Logit(y[develop], X[develop]).fit(disp=0).predict(X)


full = fitted(["rate_marriage", "age", "yrs_married", "children", "religious", "educ"])
short = fitted(["rate_marriage", "religious"])
valid = pl.DataFrame({"affair": y[~develop], "age_group": fair["age_group"].to_numpy()[~develop],
                      "full": full[~develop], "short": short[~develop]})
print(f"validation half: {valid.height} women, {valid['affair'].sum()} with an affair "
      f"({valid['affair'].mean():.1%})")

# ---------------------------------------------------------------- 2. one table: discrimination, calibration, utility
thresholds = [0.2, 0.3, 0.4]
scores = ["full", "short"]
by_age = dict(outcome="affair", score=scores, by="age_group")
discrimination = auroc(valid, **by_age)
calibrated = calibration(valid, **by_age, statistic=["citl", "slope"])
utility = net_benefit(valid, **by_age, thresholds=thresholds)
overall = [auroc(valid, "affair", scores), calibration(valid, "affair", scores, statistic=["citl", "slope"]),
           net_benefit(valid, "affair", scores, thresholds=thresholds)]
table = discrimination.table(calibrated, utility, overall=overall, scores_as="rows")
print(table)
(OUT / "06_performance_table.md").write_text(table.to_markdown())

# ---------------------------------------------------------------- 3. the decision curves, per age group
curves = net_benefit(valid, **by_age, thresholds=np.round(np.arange(0.05, 0.81, 0.01), 2))
figure = curves.plot(title="Decision curves of the two models by age group (95% pointwise bands)")
figure.savefig(OUT / "06_decision_curves.png", dpi=150)
print(f"decision curves: {OUT / '06_decision_curves.png'}")

# ---------------------------------------------------------------- 4. the two models on the same women, 20-40%
grid = np.round(np.arange(0.2, 0.41, 0.01), 2)
paired = compare(valid, "affair", scores, metric="net_benefit", thresholds=grid, band=(0.2, 0.4), rng=1)
frame = paired.to_polars() if hasattr(paired, "to_polars") else pl.from_pandas(paired.to_frame())
shown = frame.select("threshold", "difference", "lower", "upper", "lower_band", "upper_band", "p_value")
print(shown.filter(pl.col("threshold").is_in([0.2, 0.25, 0.3, 0.35, 0.4])))
beats = bool((frame["lower_band"] > 0).all())
print(f"full model beats the short one at every threshold from 20% to 40% (simultaneous 95% band): {beats}")

# ---------------------------------------------------------------- 5. subgroups, policies, standardised net benefit
# net benefit is in units of true positives per person, so it grows with the prevalence: age groups whose
# outcome is more common gain more from the same model. The standardised net benefit (over the prevalence, the
# most a perfect model could gain) asks whether the model captures the same share of the possible benefit.
for statistic in ("net_benefit", "standardized_net_benefit"):
    at_30 = net_benefit(valid, "affair", "full", by="age_group", thresholds=0.3, statistic=statistic)
    print(at_30.heterogeneity().summary())
print(net_benefit(valid, "affair", "full", thresholds=[0.2, 0.3], statistic="all").summary())
print(net_benefit(valid, "affair", "full", thresholds=[0.2, 0.3], policy="opt-out").summary())
