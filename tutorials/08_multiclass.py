"""Tutorial 08: a three-class outcome. One-vs-rest and Hand & Till areas, intervals, two models compared.

On data nobody here prepared (scikit-learn's ``wine`` data: 178 wines of
three cultivars, 13 chemical measurements), two multinomial logistic
models predict the cultivar, out of fold (10-fold cross-validation):

* ``full``: all 13 measurements;
* ``short``: alcohol and malic acid only.

Then:

1. the one-vs-rest AUROC and AUCPR of each cultivar, with the macro,
   weighted and micro averages, and Hand & Till's M (the mean over the three
   pairs of cultivars);
2. intervals: the multivariate DeLong for AUROC (the three areas share
   their rows, so the averages' variance needs their covariance) and the
   class-stratified bootstrap for AUCPR; a cultivar the full model separates
   perfectly gets a score interval (the note says so);
3. the paired comparison of the two models on the same wines, per cultivar
   and for the macro average;
4. the same per colour-intensity band (a subgroup), the one-vs-rest curves
   and the forest plot, and the publication table.

Run ``python tutorials/08_multiclass.py`` from the repository root. Outputs
go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold, cross_val_predict  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from aucpr_stats import aucpr, auroc  # noqa: E402

OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
N_BOOT = 300 if QUICK else 2000
warnings.simplefilter("ignore")  # small-sample notes are in the frames' `note` column

# ---------------------------------------------------------------- 1. out-of-fold probabilities of two models
wine = load_wine(as_frame=True)
X, cultivar = wine.data, wine.target.map({0: "barolo", 1: "grignolino", 2: "barbera"})
folds = StratifiedKFold(10, shuffle=True, random_state=1)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
data = pd.DataFrame({"cultivar": cultivar})
for name, columns in (("full", list(X.columns)), ("short", ["alcohol", "malic_acid"])):
    probabilities = cross_val_predict(model, X[columns], cultivar, cv=folds, method="predict_proba")
    for k, level in enumerate(sorted(cultivar.unique())):  # scikit-learn orders the classes by sorting
        data[f"{name}_{level}"] = probabilities[:, k]
data["colour"] = pd.cut(X["color_intensity"], [0, 3.5, 6, 20], labels=["pale", "medium", "deep"])

# ---------------------------------------------------------------- 2. areas per cultivar and their averages
models = {"full": "full_{level}", "short": "short_{level}"}
areas = auroc(data, "cultivar", models, multiclass="ovr", average="all")
print(areas.summary())
print(auroc(data, "cultivar", models, multiclass="hand_till").summary())

delong = areas.conf_int()  # multivariate DeLong: the default for AUROC
print(delong.summary())
precision = aucpr(data, "cultivar", models, multiclass="ovr", average="all").conf_int(n_boot=N_BOOT, seed=8)
print(precision.summary())

# ---------------------------------------------------------------- 3. the two models compared on the same wines
print(areas.compare("full", "short").summary())
print(aucpr(data, "cultivar", models, multiclass="ovr", average="macro").compare(
    "full", "short", n_boot=N_BOOT, seed=9).summary())

# ---------------------------------------------------------------- 4. per colour band: table, curves, forest plot
by_colour = auroc(data, "cultivar", "short_{level}", by="colour", multiclass="ovr", average=["macro", "micro"])
intervals = by_colour.conf_int()
table = intervals.table()
(OUT / "multiclass_table.md").write_text(table.to_markdown())
print(table.to_text())
auroc(data, "cultivar", models, multiclass="ovr").plot().savefig(OUT / "multiclass_roc_curves.png", dpi=100)
intervals.plot(title="AUROC of the short model by colour band").savefig(OUT / "multiclass_forest.png", dpi=100)
macro = delong.to_frame().query("`class` == 'macro'")
assert np.all(macro["lower"] <= macro["estimate"]) and np.all(macro["estimate"] <= macro["upper"])
print(f"wrote {OUT / 'multiclass_table.md'} and two figures")
