"""Write data/wine_oof.csv: scikit-learn's wine data with out-of-fold class probabilities of two models.

Run from the repository root: ``python data/make_wine_oof.py`` (needs scikit-learn, a test extra). With the
pinned seed it rewrites the file exactly.
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SEED = 20010101
NAMES = {0: "barolo", 1: "grignolino", 2: "barbera"}  # the three cultivars, in the source's order


def main() -> None:
    wine = load_wine(as_frame=True)
    cultivar = wine.target.map(NAMES)
    folds = StratifiedKFold(10, shuffle=True, random_state=SEED)
    out = pd.DataFrame({"wine_id": np.arange(1, len(cultivar) + 1), "cultivar": cultivar,
                        "colour": pd.cut(wine.data["color_intensity"], [0, 3.5, 6, 20],
                                         labels=["pale", "medium", "deep"]).astype(str)})
    for name, columns in (("full", list(wine.data.columns)), ("short", ["alcohol", "malic_acid"])):
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        p = cross_val_predict(model, wine.data[columns], cultivar, cv=folds, method="predict_proba")
        for k, level in enumerate(sorted(cultivar.unique())):  # scikit-learn sorts the classes
            out[f"{name}_{level}"] = np.round(p[:, k], 12)
    path = Path(__file__).with_name("wine_oof.csv")
    out.to_csv(path, index=False)
    print(f"wrote {path} ({len(out)} rows)")


if __name__ == "__main__":
    main()
