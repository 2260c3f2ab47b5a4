"""Tutorial 09: a time-to-event outcome. AUC(t) and AP(t) with censoring, two models compared, curves over t.

On data nobody here prepared (the Worcester Heart Attack Study, 500
patients followed after a myocardial infarction, bundled with
scikit-survival as ``load_whas500``; 43% died during follow-up, the rest are
censored), two proportional-hazards models predict death, out of fold
(5-fold cross-validation, statsmodels' ``PHReg``):

* ``full``: the 14 clinical variables;
* ``age``: age alone.

Then:

1. AUC(t) and AP(t) at one, two and three years, with influence-function
   intervals that include the estimation of the censoring distribution, and
   the bootstrap that re-fits it in every replicate;
2. what the shortcut "event by t, drop the censored" would have reported
   instead: it drops the patients censored before t, so deaths make up too
   large a share of those left, and AP(t), which reads that share, is
   inflated (here censoring is mostly administrative and unrelated to the
   scores, so AUC(t) moves little);
3. the paired comparison of the two models at each horizon;
4. the same per sex (a subgroup), and AUC(t) and AP(t) curves over the
   follow-up with pointwise intervals and a simultaneous band.

Run ``python tutorials/09_time_to_event.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sksurv.datasets import load_whas500  # noqa: E402
from statsmodels.duration.hazard_regression import PHReg  # noqa: E402

from aucpr_stats import aucpr, auroc  # noqa: E402

OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
N_BOOT = 200 if QUICK else 2000
warnings.simplefilter("ignore")  # small-sample notes are in the frames' `note` column

# ---------------------------------------------------------------- 1. out-of-fold risk scores of two models
X, y = load_whas500()
years = y["lenfol"] / 365.25
death = y["fstat"].astype(int)
design = pd.get_dummies(X, drop_first=True, dtype=float)
fold = np.random.default_rng(500).permutation(np.arange(len(X)) % 5)
scores = {"full": np.empty(len(X)), "age": np.empty(len(X))}
for k in range(5):
    train, test = fold != k, fold == k
    for name, columns in (("full", list(design.columns)), ("age", ["age"])):
        fit = PHReg(years[train], design.loc[train, columns].to_numpy(), status=death[train]).fit()
        scores[name][test] = design.loc[test, columns].to_numpy() @ fit.params
data = pd.DataFrame({"years": years, "death": death, "sex": np.where(X["gender"] == "1", "female", "male"),
                     **scores})
horizons = [1, 2, 3]

auc = auroc(data, score=["full", "age"], time="years", event="death", horizon=horizons)
print(auc.conf_int().to_frame()[["score", "horizon", "estimate", "lower", "upper", "n_pos", "n_neg"]])
ap = aucpr(data, score=["full", "age"], time="years", event="death", horizon=horizons)
print(ap.conf_int("bootstrap", n_boot=N_BOOT, seed=9).to_frame()[
    ["score", "horizon", "estimate", "lower", "upper", "prevalence"]])

# ---------------------------------------------------------------- 2. the shortcut that drops the censored
for k, t in enumerate(horizons):
    known = data[(data["years"] > t) | (data["death"] == 1)].assign(dead=lambda d: (d["years"] <= t).astype(int))
    print(f"t = {t}: dropping the {len(data) - len(known)} patients censored before t, AUC(t) "
          f"{auroc(known, 'dead', 'full').estimate:.3f} (weighted {auc.estimates[0, 0, k]:.3f}), AP(t) "
          f"{aucpr(known, 'dead', 'full').estimate:.3f} (weighted {ap.estimates[0, 0, k]:.3f})")

# ---------------------------------------------------------------- 3. two models compared at each horizon
print(auc.compare("full", "age").to_frame()[["horizon", "difference", "lower", "upper", "p_value"]])

# ---------------------------------------------------------------- 4. per sex, and curves over the follow-up
by_sex = auroc(data, score="full", by="sex", time="years", event="death", horizon=horizons)
print(by_sex.conf_int().to_frame()[["sex", "horizon", "estimate", "lower", "upper", "note"]])
grid = np.round(np.linspace(0.25, 4.0, 6 if QUICK else 16), 3)
auroc(data, score=["full", "age"], time="years", event="death", horizon=grid).plot(
    seed=1, title="AUC(t) of two models of death after a heart attack (WHAS500)").savefig(
    OUT / "09_auc_over_time.png", dpi=110)
aucpr(data, score="full", by="sex", time="years", event="death", horizon=grid).plot(
    seed=1, title="AP(t) of the full model by sex (WHAS500)").savefig(OUT / "09_ap_over_time.png", dpi=110)
print(f"wrote figures to {OUT}")
