"""Write data/breast_cancer_oof.csv: REAL diagnostic data with out-of-fold model scores.

Source: the Breast Cancer Wisconsin (Diagnostic) data set (Wolberg, Street &
Mangasarian, 1995; UCI Machine Learning Repository, CC BY 4.0), as bundled
with scikit-learn (``sklearn.datasets.load_breast_cancer``), so it needs no
network. 569 fine-needle aspirates of breast masses, 212 malignant.

Three models score every case *out of fold* (5-fold stratified
cross-validation, ``cross_val_predict``, fixed seeds), so no case is scored by
a model that saw it:

- ``logistic``: L2 logistic regression on the ten standardised "mean" features;
- ``forest``: a random forest (300 trees) on the same ten features;
- ``texture``: logistic regression on four shape-free features only (mean
  texture, smoothness, symmetry, fractal dimension), a deliberately weaker model.

The subgroup column ``size_group`` cuts ``mean area`` at its tertiles
(small / medium / large lesions). Prevalence differs sharply between the
groups, which is exactly where AUCPR and AUROC tell different stories.

Run from the repository root: ``python data/make_breast_cancer.py``.
"""

from pathlib import Path

import numpy as np
import polars as pl
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SEED = 20130923
MEAN_FEATURES = [
    "mean radius", "mean texture", "mean perimeter", "mean area", "mean smoothness", "mean compactness",
    "mean concavity", "mean concave points", "mean symmetry", "mean fractal dimension",
]
TEXTURE_FEATURES = ["mean texture", "mean smoothness", "mean symmetry", "mean fractal dimension"]


def make() -> pl.DataFrame:
    bunch = load_breast_cancer(as_frame=True)
    x = bunch.data
    # scikit-learn codes benign as 1 and malignant as 0; the outcome here is malignancy
    malignant = (bunch.target.to_numpy() == 0).astype(np.int8)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)

    def oof(model, columns):
        return cross_val_predict(model, x[columns], malignant, cv=folds, method="predict_proba")[:, 1]

    logistic = oof(make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)), MEAN_FEATURES)
    forest = oof(RandomForestClassifier(n_estimators=300, random_state=SEED, n_jobs=1), MEAN_FEATURES)
    texture = oof(make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)), TEXTURE_FEATURES)

    area = x["mean area"].to_numpy()
    cuts = np.quantile(area, [1 / 3, 2 / 3])
    size_group = np.select([area <= cuts[0], area <= cuts[1]], ["1 small", "2 medium"], "3 large")
    return pl.DataFrame({
        "case_id": np.arange(1, len(malignant) + 1),
        "diagnosis": np.where(malignant == 1, "malignant", "benign"),
        "malignant": malignant,
        "size_group": size_group,
        "mean_area": np.round(area, 1),
        "logistic": np.round(logistic, 6),
        "forest": np.round(forest, 6),
        "texture": np.round(texture, 6),
    })


if __name__ == "__main__":
    out = Path(__file__).with_name("breast_cancer_oof.csv")
    make().write_csv(out)
    print(f"wrote {out}")
