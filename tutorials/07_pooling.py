"""Tutorial 07: pooling. Multiply imputed predictors (Rubin's rules) and several sites (random effects).

Two everyday needs of a validation study, on data nobody here prepared
(statsmodels' ``fair`` data: 6,366 women surveyed by Redbook in 1974, the
outcome any extramarital affair, standing in for a clinical outcome):

1. A model is fitted on a development half. In the validation half a
   predictor (education) is missing for some women, more often for younger
   women and for those with the outcome (missing at random given age and
   outcome): dropping them (complete cases) biases the areas.
2. The missing values are imputed ten times with statsmodels' chained
   equations (``MICEData``, the outcome in the imputation models, as one
   should), the model scores every imputed data set, and the data sets are
   stacked in mice's long format with an ``.imp`` column.
3. ``imputation=".imp"`` pools AUROC, AUCPR, calibration and net benefit by
   Rubin's rules (logit scale for the areas, Barnard-Rubin degrees of
   freedom), with the fraction of missing information per row; the paired
   comparison of two models is pooled too, and a pooled heterogeneity test
   (D1) asks whether the AUROC differs between age groups.
4. The husband's occupation (six levels) stands in for six sites:
   ``result.meta()`` gives the random-effects pooled AUROC, tau², I² and the
   95% prediction interval for a new site, with the forest plot and the
   publication table, and a leave-one-site-out table.

Run ``python tutorials/07_pooling.py`` from the repository root. Outputs go
to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import polars as pl  # noqa: E402
import statsmodels.api as sm  # noqa: E402
from statsmodels.imputation.mice import MICEData  # noqa: E402

from aucpr_stats import aucpr, auroc, calibration, compare, net_benefit, publication_table  # noqa: E402

OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
warnings.simplefilter("ignore")  # small-sample notes are in the frames' `note` column

# ---------------------------------------------------------------- 1. a model, and a predictor missing at random
fair = sm.datasets.fair.load_pandas().data
fair["affair"] = (fair["affairs"] > 0).astype(int)
fair["age_group"] = np.where(fair["age"] < 27, "17-26", np.where(fair["age"] < 37, "27-36", "37+"))
rng = np.random.default_rng(7)
develop = rng.random(len(fair)) < 0.5
predictors = ["rate_marriage", "age", "yrs_married", "children", "religious", "educ"]
X = sm.add_constant(fair[predictors].to_numpy(dtype=float))
full_model = sm.Logit(fair["affair"].to_numpy()[develop], X[develop]).fit(disp=0)
short_model = sm.Logit(fair["affair"].to_numpy()[develop], X[develop][:, [0, 1, 5]]).fit(disp=0)  # marriage, religion

valid = fair.loc[~develop, [*predictors, "affair", "age_group", "occupation_husb"]].reset_index(drop=True)
# education goes missing more often for younger women and for those with an affair (MAR given age and outcome)
p_missing = 1 / (1 + np.exp(-(-1.6 - 0.08 * (valid["age"] - 30) + 1.0 * valid["affair"])))
valid.loc[rng.random(len(valid)) < p_missing, "educ"] = np.nan
print(f"validation half: {len(valid)} women, education missing for {valid['educ'].isna().mean():.1%}")


def scored(frame: pd.DataFrame) -> pd.DataFrame:
    """Both models' predicted risks for a (complete or imputed) validation frame."""
    Xv = sm.add_constant(frame[predictors].to_numpy(dtype=float), has_constant="add")
    return frame.assign(full=full_model.predict(Xv), short=short_model.predict(Xv[:, [0, 1, 5]]))


complete_cases = pl.from_pandas(scored(valid.dropna()))

# ---------------------------------------------------------------- 2. ten imputations (chained equations), stacked
m = 3 if QUICK else 10
numeric = valid[[*predictors, "affair"]].astype(float)  # the outcome is in the imputation models
engine = MICEData(numeric)
imputed = []
for i in range(1, m + 1):
    engine.update_all(2 if QUICK else 10)  # iterations between imputations
    one = valid.copy()
    one["educ"] = engine.data["educ"].to_numpy()
    imputed.append(scored(one).assign(**{".imp": i}))
stacked = pl.from_pandas(pd.concat(imputed, ignore_index=True))
print(f"{m} imputed data sets stacked: {stacked.height} rows")

# ---------------------------------------------------------------- 3. pooled by Rubin's rules
pooled_auroc = auroc(stacked, "affair", ["full", "short"], imputation=".imp")
print(pooled_auroc.conf_int().select("score", "estimate", "lower", "upper", "df", "fmi"))
cc = auroc(complete_cases, "affair", ["full", "short"]).conf_int(method="delong")
print("complete cases only (biased when missingness depends on the outcome):")
print(cc.select("score", "estimate", "lower", "upper"))

by_age = dict(outcome="affair", score="full", by="age_group", imputation=".imp")
table = publication_table([aucpr(stacked, **by_age), auroc(stacked, **by_age),
                           calibration(stacked, **by_age, statistic=["citl", "slope"]),
                           net_benefit(stacked, **by_age, thresholds=[0.2, 0.3])])
print(table)
(OUT / "07_pooled_table.md").write_text(table.to_markdown())

paired = compare(stacked, "affair", ["full", "short"], metric="auroc", imputation=".imp")
print(paired.to_polars().select("difference", "lower", "upper", "p_value", "df", "fmi"))
print(auroc(stacked, **by_age).heterogeneity().summary())  # D1: the AUROC the same in every age group?

# ---------------------------------------------------------------- 4. six "sites": random-effects meta-analysis
sites = auroc(complete_cases, "affair", "full", by="occupation_husb")
meta = sites.meta()  # REML, Hartung-Knapp-Sidik-Jonkman, 95% prediction interval
print(meta.summary())
print(meta.leave_one_out())
print(publication_table(meta))
axes = meta.plot(title="AUROC of the full model by husband's occupation, pooled by random effects")
axes.figure.savefig(OUT / "07_meta_forest.png", dpi=150, bbox_inches="tight")
print(f"forest plot: {OUT / '07_meta_forest.png'}")
# the same, with the imputed data: each site's AUROC pooled over the imputations first, then across sites
print(auroc(stacked, "affair", "full", by="occupation_husb", imputation=".imp").meta().summary())
