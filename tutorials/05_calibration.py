"""Tutorial 05: can the predicted risks be taken at face value? Calibration beside discrimination.

A model that ranks patients well (high AUROC) can still predict risks that
are systematically too high, too low, or too extreme. This script, on data
nobody here prepared (statsmodels' ``fair`` data set: 6,366 women surveyed
by Redbook in 1974, the outcome any extramarital affair), as a reader of a
prediction-model paper would need it:

1. fits two logistic models on a development half (a full one and one
   fitted on a sample that over-represents the outcome, as a case-control
   development sample would) and predicts the validation half;
2. reports discrimination and calibration side by side, with intervals:
   AUROC, observed/expected, calibration-in-the-large, slope, Brier, ICI;
3. draws each model's calibration curve with pointwise and simultaneous
   bands and the distribution of predicted risks beneath;
4. asks whether calibration differs between age groups (heterogeneity) and
   compares the two models' calibration on the same women (paired);
5. shows what ``prevalence=`` does for a case-control validation sample.

Run ``python tutorials/05_calibration.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``);
``AUCPR_STATS_QUICK=1`` uses fewer bootstrap replicates (CI).
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

from aucpr_stats import auroc, calibration, compare  # noqa: E402

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
warnings.simplefilter("ignore")  # small-sample notes are in the frames' `note` column

# ---------------------------------------------------------------- 1. two models, a development and a validation half
fair = sm.datasets.fair.load_pandas().data
fair["affair"] = (fair["affairs"] > 0).astype(int)
fair["age_group"] = np.where(fair["age"] < 27, "17-26", np.where(fair["age"] < 37, "27-36", "37+"))
rng = np.random.default_rng(2026)
develop = rng.random(len(fair)) < 0.5
predictors = ["rate_marriage", "age", "yrs_married", "children", "religious", "educ"]
X = sm.add_constant(fair[predictors].to_numpy(dtype=float))
y = fair["affair"].to_numpy()

full = sm.Logit(y[develop], X[develop]).fit(disp=0)
# the "case-control" model: every development case, but only a third of the controls
sampled = develop & ((y == 1) | (rng.random(len(y)) < 1 / 3))
enriched = sm.Logit(y[sampled], X[sampled]).fit(disp=0)

valid = pl.DataFrame({"affair": y[~develop], "age_group": fair["age_group"].to_numpy()[~develop],
                      "full": full.predict(X[~develop]), "enriched": enriched.predict(X[~develop])})
print(f"validation half: {valid.height} women, {valid['affair'].sum()} with an affair "
      f"({valid['affair'].mean():.1%})\n")

# ---------------------------------------------------------------- 2. discrimination and calibration side by side
print(auroc(valid, "affair", ["full", "enriched"]).conf_int().select("score", "estimate", "lower", "upper"))
cal = calibration(valid, "affair", ["full", "enriched"],
                  statistic=["oe_ratio", "citl", "slope", "brier", "scaled_brier", "ici"])
print(cal.conf_int().select("score", "estimator", "estimate", "lower", "upper", "method"))
# the enriched model ranks as well (the same predictors) but over-predicts: O/E well below 1, CITL below 0
print(cal.table(method="default", digits=3).to_text())
print(cal.conf_int(method="profile").filter(pl.col("estimator").is_in(["citl", "slope"]))
      .select("score", "estimator", "estimate", "lower", "upper"))
boot = cal.conf_int(method="bootstrap", n_boot=200 if QUICK else 1000, seed=5)
print(boot.filter(pl.col("estimator") == "ici").select("score", "estimate", "lower", "upper"))

# ---------------------------------------------------------------- 3. calibration curves with bands
figure = cal.curve().plot(title="Calibration in the validation half (fair data)")
figure.savefig(OUT / "05_calibration_curves.png", dpi=120)
print(f"\nwrote {OUT / '05_calibration_curves.png'}")

# ---------------------------------------------------------------- 4. subgroups and a paired comparison
by_age = calibration(valid, "affair", "full", by="age_group", statistic=["citl", "slope"])
print(by_age.conf_int().select("age_group", "estimator", "estimate", "lower", "upper"))
print(by_age.heterogeneity().to_frame().select("estimator", "statistic", "df", "p_value"))
paired = compare(valid, "affair", ["full", "enriched"], metric="calibration", estimator=["oe_ratio", "citl", "brier"])
print(paired.to_frame().select("estimator", "estimate_a", "estimate_b", "difference", "lower", "upper", "p_value"))

# ---------------------------------------------------------------- 5. a case-control validation sample
cases = valid.filter(pl.col("affair") == 1)
controls = valid.filter(pl.col("affair") == 0).sample(n=2 * cases.height, seed=3)
case_control = pl.concat([cases, controls])
population = valid["affair"].mean()
naive = calibration(case_control, "affair", "full", statistic=["oe_ratio", "citl", "slope"])
stated = calibration(case_control, "affair", "full", statistic=["oe_ratio", "citl", "slope"],
                     prevalence=float(population))
print("\ncase-control sample (2 controls per case): as sampled, and at the population prevalence "
      f"{population:.3f}")
print(pl.DataFrame({"statistic": naive.estimators, "as_sampled": naive.estimates[0],
                    "at_population_prevalence": stated.estimates[0],
                    "whole_validation_half": cal.estimates[0, [0, 1, 2]]}))
